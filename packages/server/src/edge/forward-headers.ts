/**
 * Which headers cross the edge. Towards the local server: no hop-by-hop headers, no public Host or
 * Origin (local servers check them against DNS rebinding), plus X-Forwarded-*. Towards the agent:
 * no hop-by-hop headers, SSE marked unbufferable, session headers exposed to browser agents, each
 * `Set-Cookie` kept to the tunnel's own host (no `Domain`: a tunnel must not plant cookies on the
 * service or on other tunnels), no instructions to the proxy in front or to the browser's
 * storage, and a sandbox CSP: a tunnel serves MCP, never a web page that could run script on the
 * service's zone.
 */
import {
  FOREIGN_SESSION_HEADER,
  HOP_BY_HOP_HEADERS as HOP_BY_HOP,
  type HeaderPairs,
} from '@burrow/protocol'

/** The agent the edge admitted a request as (set here only; an agent's own is dropped). */
export const AGENT_HEADER = 'burrow-agent'

const NOT_FORWARDED_UPSTREAM = new Set([
  AGENT_HEADER,
  'host',
  'origin',
  'content-length',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  // Answers are asked for as they are (identity, added below): the edge reads them.
  'accept-encoding',
  // Met by the edge, which read the whole body before forwarding it; `burrow up`'s HTTP client
  // refuses to send it (every such call got 502).
  'expect',
])

const NO_TOKENS: ReadonlySet<string> = new Set()

/** Headers the edge or `burrow up` reads for MCP by one fixed name. */
const MCP_NAMES: ReadonlySet<string> = new Set([
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
])

/**
 * Whether `name`, spelled with `_`, is what a server mapping headers CGI-style reads as a header
 * MCP names (`judged`, `_` read as `-`): one of its fixed names, or an `Mcp-Param-` header whose
 * prefix is spelled with `_` (`Mcp_Param_Region`). The parameter's own name may hold `_`
 * (`Mcp-Param-tenant_id`, for a tool's `x-mcp-header: tenant_id`): that one is the client's.
 */
function aliasOfMcpHeader(name: string, judged: string): boolean {
  if (MCP_NAMES.has(judged)) return true
  return judged.startsWith('mcp-param-') && name.slice(0, 10) !== 'mcp-param-'
}

/**
 * Header names listed in every Connection header (repeated fields combine, RFC 9110 §5.3):
 * `nameAt(i)` and `valueAt(i)` give the `count` headers.
 */
function connectionTokens(
  count: number,
  nameAt: (i: number) => string,
  valueAt: (i: number) => string,
): ReadonlySet<string> {
  let tokens: Set<string> | null = null
  for (let i = 0; i < count; i++) {
    const name = nameAt(i)
    if (name.length !== 10 || name.toLowerCase() !== 'connection') continue
    tokens ??= new Set()
    for (const t of valueAt(i).split(',')) if (t.trim()) tokens.add(t.trim().toLowerCase())
  }
  return tokens ?? NO_TOKENS
}

/**
 * Headers of a public request as sent to the local server. `raw` is node's rawHeaders list. The
 * answer is asked for uncompressed (`Accept-Encoding: identity`): the edge reads answers to apply
 * the tunnel's policy and record history, and a front proxy may compress for the agent.
 * `dropCredentials` drops `Authorization` too: it held the credential the agent showed Burrow.
 * `agent`, the grant or agent token the access gate admitted the request under, goes as
 * `Burrow-Agent` (burrow up tells sessionless agents apart by it; docs/security.md).
 */
export function upstreamRequestHeaders(
  raw: readonly string[],
  forwarded: {
    clientIp: string
    proto: string
    host: string
    dropCredentials?: boolean
    agent?: string | null
  },
): HeaderPairs {
  const out: [string, string][] = []
  const listed = connectionTokens(
    raw.length >> 1,
    (i) => raw[2 * i]!,
    (i) => raw[2 * i + 1]!,
  )
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase()
    // `X_Real_IP` reads as X-Real-IP to servers that map headers CGI-style (HTTP_X_REAL_IP: PHP,
    // CGI, WSGI servers that keep such fields): judged as the name it stands for there.
    const judged = name.includes('_') ? name.replace(/_/g, '-') : name
    if (HOP_BY_HOP.has(judged) || NOT_FORWARDED_UPSTREAM.has(judged) || listed.has(name)) continue
    // `Mcp_Session_Id` would be a second session id there, one `burrow up` never checked as the
    // agent's own; `Mcp_Name` a second tool name, one the tunnel's policy never judged.
    if (judged !== name && aliasOfMcpHeader(name, judged)) continue
    if (forwarded.dropCredentials === true && name === 'authorization') continue
    out.push([name, raw[i + 1]!])
  }
  out.push(
    ['accept-encoding', 'identity'],
    ['x-forwarded-for', forwarded.clientIp],
    ['x-forwarded-proto', forwarded.proto],
    ['x-forwarded-host', forwarded.host],
  )
  if (forwarded.agent) out.push([AGENT_HEADER, forwarded.agent])
  return out
}

/**
 * A content type saying UTF-8, for an answer the edge read (and wrote) as UTF-8: a server's own
 * `charset` (say iso-8859-1, where the byte 0x85 is a line end to some SSE readers) would let an
 * agent read what the edge did not check. Text types and types that named a charset get
 * `charset=utf-8`; others (JSON, UTF-8 by definition) keep their parameters.
 */
export function utf8ContentType(value: string): string {
  const [type = '', ...params] = value.split(';')
  const kept = params.filter((p) => p.split('=', 1)[0]!.trim().toLowerCase() !== 'charset')
  const named = kept.length !== params.length
  const text = type.trim().toLowerCase().startsWith('text/')
  if (!named && !text) return value
  return [type.trim(), ...kept.map((p) => p.trim()), 'charset=utf-8'].join('; ')
}

/** Headers of a tunnelled response as sent to the agent, flat `[name, value, …]` for writeHead. */
export function agentResponseHeaders(pairs: HeaderPairs): string[] {
  const out: string[] = []
  const listed = connectionTokens(
    pairs.length,
    (i) => pairs[i]![0],
    (i) => pairs[i]![1],
  )
  let sse = false
  let allowOrigin = false
  let expose = false
  let buffering = false
  for (const [name, raw] of pairs) {
    // The tunnel client is not trusted to send only valid fields: one Node would refuse to
    // write is dropped, so that no local server (or hostile client) can break the answer.
    const value = fieldValue(raw)
    if (value === null || !TOKEN.test(name)) continue
    const lower = name.toLowerCase()
    if (HOP_BY_HOP.has(lower) || listed.has(lower) || lower === 'content-length') continue
    if (lower === 'content-type' && value.toLowerCase().startsWith('text/event-stream')) sse = true
    if (lower === 'access-control-allow-origin') allowOrigin = true
    if (lower === 'access-control-expose-headers') expose = true
    if (lower === 'x-accel-buffering') buffering = true
    if (lower === 'content-security-policy' || lower === 'x-content-type-options') continue
    if (NOT_FORWARDED_TO_AGENT.has(lower)) continue
    out.push(lower, lower === 'set-cookie' ? hostOnlyCookie(value) : value)
  }
  out.push('content-security-policy', SANDBOX_CSP, 'x-content-type-options', 'nosniff')
  if (sse && !buffering) out.push('x-accel-buffering', 'no')
  if (!allowOrigin) out.push('access-control-allow-origin', '*')
  if (!expose) out.push('access-control-expose-headers', EXPOSED_HEADERS)
  return out
}

/**
 * Response headers a local server may not send the agent: `Clear-Site-Data` (its `"cookies"`
 * clears the cookies of the whole registrable domain, the dashboard's too when it shares the
 * zone), and the `X-Accel-*` instructions nginx in front of burrowd would obey (an internal
 * redirect to any location, a rate, an expiry); `X-Accel-Buffering` alone passes.
 */
const NOT_FORWARDED_TO_AGENT: ReadonlySet<string> = new Set([
  // burrow up's word to the edge: a refused session goes on as another agent's.
  FOREIGN_SESSION_HEADER,
  'clear-site-data',
  'x-accel-redirect',
  'x-accel-expires',
  'x-accel-limit-rate',
  'x-accel-charset',
])

/** An HTTP field name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/**
 * `value` as it can be written to the agent, or null when it cannot: a control character (CR and
 * LF would split the head) drops the field; characters beyond Latin-1, which Node will not write,
 * go as their UTF-8 bytes, the bytes a local server sent.
 */
export function fieldValue(value: string): string | null {
  let wide = false
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c > 0xff) wide = true
    else if ((c < 0x20 && c !== 0x09) || c === 0x7f) return null
  }
  return wide ? Buffer.from(value, 'utf8').toString('latin1') : value
}

/** What every tunnel response says to a browser: render nothing active, run no script. */
export const SANDBOX_CSP = "sandbox; default-src 'none'; frame-ancestors 'none'"

/** A `Set-Cookie` value without its `Domain` attribute: the cookie stays on the tunnel's host. */
export function hostOnlyCookie(value: string): string {
  if (!/;\s*domain\s*=/i.test(value)) return value
  return value
    .split(';')
    .filter((part, i) => i === 0 || !/^\s*domain\s*=/i.test(part))
    .join(';')
}

/**
 * What a browser agent may read of an answer: MCP's session headers, and why `burrow up` refused
 * (`x-burrow-error: upstream_unreachable` on its 502, as on the edge's own refusals).
 */
const EXPOSED_HEADERS = 'mcp-session-id, mcp-protocol-version, x-burrow-error, retry-after'

/** The answer to a CORS preflight on `/mcp`: any origin may call with MCP's headers. */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers':
    'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method, mcp-name',
  'access-control-expose-headers': EXPOSED_HEADERS,
  'access-control-max-age': '86400',
}

/** An `Mcp-Param-*` header name (2026-07-28 mirrors a tool's `x-mcp-header` parameters so). */
const PARAM_HEADER = /^mcp-param-[a-z0-9!#$%&'*+.^_`|~-]{1,100}$/
/** Most `Mcp-Param-*` names one preflight is answered with. */
const MAX_PARAM_HEADERS = 32

/**
 * The answer to a preflight that asked for `requested` (`Access-Control-Request-Headers`): MCP's
 * headers, and the `Mcp-Param-*` names it asked for, which depend on the tool called and so
 * cannot be listed ahead.
 */
export function preflightHeaders(requested: string | undefined): Readonly<Record<string, string>> {
  if (requested === undefined || !requested.toLowerCase().includes('mcp-param-')) {
    return PREFLIGHT_HEADERS
  }
  const params = requested
    .toLowerCase()
    .split(',')
    .map((name) => name.trim())
    .filter((name) => PARAM_HEADER.test(name))
    .slice(0, MAX_PARAM_HEADERS)
  if (params.length === 0) return PREFLIGHT_HEADERS
  return {
    ...PREFLIGHT_HEADERS,
    'access-control-allow-headers': `${PREFLIGHT_HEADERS['access-control-allow-headers']}, ${params.join(', ')}`,
  }
}
