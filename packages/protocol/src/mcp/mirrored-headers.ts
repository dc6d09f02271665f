/**
 * The headers a 2026-07-28 POST mirrors from its body (`Mcp-Method` always; `Mcp-Name` for
 * `tools/call`, `prompts/get` and `resources/read`), and the check a server makes: present, and
 * equal to the body once optional whitespace is trimmed and a `=?base64?…?=` value decoded. Values
 * compare case-sensitively. Intermediaries may use the same check to verify rather than trust.
 */
import { ownEntry } from '../own-entry.js'
import { isRecord } from './json-rpc.js'

/** The body member `Mcp-Name` mirrors, per method. */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
}

/** A header value as the sender meant it: trimmed, and decoded when in the base64 sentinel form. */
export function decodeHeaderValue(raw: string): string | null {
  const value = raw.trim()
  const sentinel = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value)
  if (!sentinel) return value
  try {
    const bytes = Uint8Array.from(atob(sentinel[1]!), (c) => c.charCodeAt(0))
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return null
  }
}

/**
 * Why a 2026-07-28 request's mirrored headers do not match its body, as a sentence; null when they
 * do. `headers` are lower-cased names, as Node and the tunnel give them.
 */
export function mirroredHeaderProblem(
  headers: Readonly<Record<string, string | undefined>>,
  method: string,
  params: unknown,
): string | null {
  const mcpMethod = headers['mcp-method']
  if (mcpMethod === undefined) return 'the Mcp-Method header is missing'
  if (mcpMethod.trim() !== method) {
    return `the Mcp-Method header (${mcpMethod.trim()}) does not match the body's method (${method})`
  }
  const source = ownEntry(NAME_SOURCE, method)
  const bodyName = source && isRecord(params) ? params[source] : undefined
  if (typeof bodyName !== 'string') return null
  const raw = headers['mcp-name']
  if (raw === undefined) return `the Mcp-Name header is missing (the body names ${bodyName})`
  const name = decodeHeaderValue(raw)
  if (name === null) return 'the Mcp-Name header is not valid base64 UTF-8'
  return name === bodyName ? null : `the Mcp-Name header does not match the body's ${source}`
}
