/**
 * The tunnel's policy as the edge applies it to one request: a call to a denied tool is refused
 * (`tool_denied`, 403), a call to a tool rug-pull protection holds too (`tool_held`, 403),
 * requests over a rate limit too (`rate_limited`, 429 with Retry-After); and the answer's
 * messages are tapped for call history and rug-pull pins, and rewritten when the policy asks
 * (denied and held tools removed from `tools/list`, secrets masked when redaction is
 * `forwarded`).
 */
import {
  answerKey,
  errorResponse,
  JSONRPC_CODE,
  ResponseMessages,
  type ClassifiedMessage,
  type HeldCopies,
  type JsonRpcBody,
  type PolicyCode,
  type ResponseKind,
  type ResponseMessagesOptions,
} from '@burrow/protocol'
import type { CallRateLimits } from '../governance/call-rate-limits.js'
import { filterToolsList, firstOfEachName } from '../governance/filter-tools-list.js'
import { RateLimitRules } from '../governance/rate-limit-demands.js'
import { unapprovedIn } from '../governance/replayed-listing.js'
import type { RugPullMode } from '../governance/policy.js'
import type { PinState, ToolPins } from '../governance/tool-pins.js'
import { mask, type Redactor } from '../governance/redactor.js'
import { redactedText } from '../governance/redacted-text.js'
import type { TunnelGovernance } from '../governance/tunnel-governance.js'
import type { ExchangeRecord } from './exchange-record.js'
import { nextCursorOf, requestedCursor, withoutLongCaching } from './listing-fields.js'

/** Said in place of a forwarded answer whose keys the redaction patterns could not all scan. */
export const UNSCANNED_ANSWER =
  "this answer was withheld: the tunnel's redaction patterns could not scan it in time"
/** Said in place of an answer the policy failed on. */
export const UNCHECKED_ANSWER =
  "this answer was withheld: it could not be checked against the tunnel's policy"

/** A refusal the policy asks for. */
export interface PolicyRefusal {
  readonly code: PolicyCode
  readonly message: string
  readonly reason: string
  readonly headers?: Record<string, string>
}

/** Rug-pull protection for one request to a tunnel whose policy has it on. */
export interface RugPull {
  readonly pins: ToolPins
  readonly tunnel: { readonly id: string; readonly accountId: string }
  readonly mode: Exclude<RugPullMode, 'off'>
  readonly zeroKnowledge: boolean
  /** The tunnel's redaction, for the definitions pins keep. */
  readonly redactor?: Redactor | null
  /**
   * The tunnel's pins, loaded when the request lists or calls tools, or carries no JSON-RPC (a
   * GET, whose stream may replay a listing); else null.
   */
  readonly state: PinState | null
}

/** Whether `rpc` lists or calls tools (then rug-pull protection needs the tunnel's pins). */
export function touchesTools(rpc: JsonRpcBody | null): boolean {
  return (
    rpc !== null &&
    rpc.messages.some(
      (m) => m.kind === 'request' && (m.method === 'tools/list' || m.method === 'tools/call'),
    )
  )
}

/**
 * Rug-pull protection for one request to `tunnel`, with its pins when the request lists or calls
 * tools: at once when they are cached, else once they are loaded; null where the policy has it
 * off (or nothing pins).
 */
export function rugPullFor(
  pins: ToolPins | null,
  tunnel: RugPull['tunnel'],
  governance: TunnelGovernance | null,
  rpc: JsonRpcBody | null,
): RugPull | null | Promise<RugPull> {
  const mode = governance?.policy.rugPull.mode ?? 'off'
  if (pins === null || governance === null || mode === 'off') return null
  const rug = (state: PinState | null): RugPull => ({
    pins,
    tunnel,
    mode,
    zeroKnowledge: governance.policy.zeroKnowledge,
    redactor: governance.redactor,
    state,
  })
  if (rpc !== null && !touchesTools(rpc)) return rug(null)
  const cached = pins.cachedState(tunnel.id)
  return cached !== undefined ? rug(cached) : pins.state(tunnel.id).then(rug)
}

/** The redactor of what reaches the agent under `governance`: null unless it is forwarded. */
export function forwardedRedactor(
  governance: TunnelGovernance | null | undefined,
): Redactor | null {
  const redactor = governance?.policy.redaction.forwarded ? governance.redactor : null
  return redactor?.active ? redactor : null
}

/** Why `rpc` may not be forwarded under `governance`, or null. Rate-limit tokens are taken. */
export async function governRequest(
  governance: TunnelGovernance,
  limits: CallRateLimits | null,
  rpc: JsonRpcBody | null,
  rug: RugPull | null = null,
  agentId: string | null = null,
): Promise<PolicyRefusal | null> {
  if (rpc === null) return null
  const denied = governance.deniedCall(rpc.messages)
  if (denied !== null) {
    return { code: 'tool_denied', message: 'tool not allowed', reason: denied.reason }
  }
  const held = rug === null ? null : heldCall(rug, rpc)
  if (held !== null) return { code: 'tool_held', message: 'tool held for approval', reason: held }
  if (limits === null) return null
  const demands = governance.rates.demands(governance.tunnelId, rpc.messages, agentId)
  if (demands.length === 0) return null
  // A batch no wait would make fit is told so, not to retry in so many seconds.
  const never = RateLimitRules.neverFits(demands)
  if (never !== null) return { code: 'rate_limited', message: 'rate limited', reason: never }
  const outcome = await limits.admit(demands)
  if (outcome.ok) return null
  return {
    code: 'rate_limited',
    message: 'rate limited',
    reason: RateLimitRules.reason(demands, outcome.index, outcome.retryAfterSecs),
    headers: { 'retry-after': String(outcome.retryAfterSecs) },
  }
}

/** The reason the first `tools/call` of `rpc` to a held tool is refused, or null. */
function heldCall(rug: RugPull, rpc: JsonRpcBody): string | null {
  if (rug.state === null) return null
  for (const m of rpc.messages) {
    if (m.kind !== 'request' || m.method !== 'tools/call' || m.target === null) continue
    const reason = rug.pins.heldReason(rug.tunnel, rug.state, m.target.name, rug.mode)
    if (reason !== null) return reason
  }
  return null
}

/**
 * How the edge shapes the answer to `rpc` (null when nothing needs it): a `ResponseMessages` per
 * answer that taps every message for `record` (and a server's `tools/list_changed` for
 * rug-pull protection), and rewrites when the policy asks. Its copy is counted in what `held`
 * gives for a copy that rewrites or only taps (the node's answer budget); messages that pass
 * untapped are noted in `record` as cut. `listingPending` says whether the agent's session has
 * a `tools/list` in flight (then an answer the edge could not read whole is cut off).
 */
export function answerShaper(
  ...args: Parameters<typeof answerShaping>
): ((kind: ResponseKind) => ResponseMessages | null) | null {
  const shaping = answerShaping(...args)
  if (shaping === null) return null
  return (kind) => {
    const options = shaping(kind)
    return options === null ? null : new ResponseMessages(options)
  }
}

/** The options of the `ResponseMessages` `answerShaper` makes, per kind of answer. */
export function answerShaping(
  governance: TunnelGovernance | null,
  rpc: JsonRpcBody | null,
  record: ExchangeRecord,
  rug: RugPull | null = null,
  held: ((rewriting: boolean) => HeldCopies) | null = null,
  listingPending: (() => boolean) | null = null,
): ((kind: ResponseKind) => ResponseMessagesOptions | null) | null {
  const rewrite = governance
    ? rewriter(governance, rpc, rug, (m) => record.answerWithheld(m))
    : null
  const copies = held?.(rewrite !== null) ?? null
  if (rpc === null && rewrite === null && rug === null) return null
  const onMessage = (m: ClassifiedMessage) => {
    if (rug !== null && m.kind === 'notification' && m.method === TOOLS_CHANGED) {
      rug.pins.listChanged(rug.tunnel.id)
    }
    record.answerMessage(m)
  }
  const onCut = () => record.answerCut()
  const onWithheld = (m: ClassifiedMessage) => record.answerWithheld(m)
  const redactor = governance?.policy.redaction.forwarded ? governance.redactor : null
  // Text that is not JSON-RPC is still read by someone: redacted as JSON when it is JSON (so
  // that a secret written with escapes, `\u0041KIA…`, is found, and configured keys apply), else
  // as text.
  const rewriteText = redactor ? (text: string) => redactedText(redactor, text) : null
  // Rug-pull protection watches the tools this request lists: an answer it cannot read may not
  // pass, whatever its content type.
  const mustRead =
    rug !== null &&
    (rpc?.messages.some((m) => m.kind === 'request' && m.method === 'tools/list') ?? false)
  // An answer of another type to a request the policy rewrites answers to is refused, not
  // passed unread (relay-response.ts): it is shaped too. With forwarded redaction an error page
  // is redacted as text, whatever the request held; the answer to notifications only answers
  // nothing, so one the edge cannot read goes on as it came (as text redacted when it can),
  // unless listings are filtered or pinned (below).
  const asks = rpc?.messages.some((m) => m.kind === 'request') ?? false
  // Where listings are filtered or pinned, a listing may only answer a listing: agents match an
  // answer by its id whatever response carries it, so one sent on the answer to another request
  // (with the id of a listing the agent has pending) would skip the filter. Such an answer is
  // cut off, and one the edge cannot read (compressed though it asked for none, or of a type an
  // agent may still read as JSON) is not sent. One whose copy passed its bound unread is cut
  // off where it would end a message while the session has a listing in flight. So is the answer
  // to a POST that holds no request (notifications, or the agent's answers to a server's
  // questions): it should be 202 with no body, but older SDKs (Python's) read the messages in one.
  const strays = filtersListings(governance, rug) ? strayListing(rpc) : null
  const shapesOther =
    mustRead || strays !== null || (rewrite !== null && (asks || rewriteText !== null))
  return (kind) =>
    kind === 'other' && !shapesOther
      ? null
      : {
          kind,
          rewrite,
          rewriteText,
          onMessage,
          onWithheld,
          held: copies,
          onCut,
          mustRead:
            mustRead ||
            (strays !== null && kind !== 'other') ||
            (rewrite !== null && (asks || kind !== 'other')),
          cutsOn: strays,
          cutsUnread: strays !== null ? listingPending : null,
        }
}

const TOOLS_CHANGED = 'notifications/tools/list_changed'

/** Whether listings are filtered by the tool policy or watched by rug-pull protection. */
function filtersListings(governance: TunnelGovernance | null, rug: RugPull | null): boolean {
  return rug !== null || (governance !== null && !governance.tools.allowsAll)
}

/**
 * True for a message in the answer to `rpc` that an agent may take for the answer to a listing
 * of its own and that the policy did not check: one with an id and a `result.tools` array that
 * answers none of `rpc`'s requests, or that is not valid JSON-RPC (an `error` beside the result,
 * a method that is not a string: strict SDKs drop it, lenient ones such as Python's read it, and
 * the policy filters only valid answers), or a request carrying one (a string method beside it). A GET (`rpc` null) replays valid listings, which are
 * filtered instead.
 */
function strayListing(rpc: JsonRpcBody | null): (m: ClassifiedMessage) => boolean {
  // Built at the first listing seen: most answers hold none.
  let asked: Set<string> | null = null
  return (m) => {
    if (m.kind === 'notification') return false
    const value = m.value as Readonly<Record<string, unknown>> | null
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
    if (value.id === null || value.id === undefined || !hasToolsArray(value)) return false
    // A request never carries a result: one that does is read as an answer by agents that look
    // for `result` first.
    if (m.kind === 'invalid' || m.kind === 'request') return true
    if (rpc === null || m.id === null) return false
    asked ??= new Set(rpc.messages.flatMap((r) => (r.kind === 'request' ? [answerKey(r.id)] : [])))
    return !asked.has(answerKey(m.id))
  }
}

function rewriter(
  governance: TunnelGovernance,
  rpc: JsonRpcBody | null,
  rug: RugPull | null,
  onWithheld: (m: ClassifiedMessage) => void,
): ((m: ClassifiedMessage) => unknown) | null {
  const pinning = rug !== null && rug.state !== null
  // A stream opened by a GET may replay answers to earlier requests (Last-Event-ID): a listing
  // among them is filtered as the answer to its request was.
  const replays = rpc === null && (!governance.tools.allowsAll || pinning)
  if (!governance.rewritesAnswers(rpc?.messages ?? [], pinning) && !replays) return null
  /** The `tools/list` requests by id, with the cursor each asked for. */
  const lists = new Map<string, string | null>()
  for (const m of rpc?.messages ?? []) {
    if (m.kind === 'request' && m.method === 'tools/list')
      lists.set(answerKey(m.id), requestedCursor(m))
  }
  const redactor = governance.policy.redaction.forwarded ? governance.redactor : null
  const rewrite = (m: ClassifiedMessage): unknown => {
    if (m.kind === 'invalid') {
      // No agent can match it to a request: masked whole, whatever it holds.
      if (redactor === null) return null
      const before = redactor.masked
      const masked = redactor.redactValue(m.value)
      return redactor.masked === before ? null : masked
    }
    let value: Record<string, unknown> = m.value
    let changed = false
    const key = m.kind === 'response' && m.id !== null ? answerKey(m.id) : null
    if (key !== null && lists.has(key)) {
      let visible = (name: string) => governance.tools.allows(name)
      if (pinning && hasToolsArray(value)) {
        const unique = firstOfEachName(value)
        if (unique.dropped > 0) {
          value = unique.response
          changed = true
        }
        const allowed = filterToolsList(value, visible)
        const hidden = rug.pins.observe(rug.tunnel, rug.state, toolsOf(allowed.response), {
          cursor: lists.get(key) ?? null,
          nextCursor: nextCursorOf(value),
          mode: rug.mode,
          zeroKnowledge: rug.zeroKnowledge,
          redactor: rug.redactor,
        })
        if (hidden.size > 0) {
          const allows = visible
          visible = (name) => allows(name) && !hidden.has(name)
        }
      }
      const filtered = filterToolsList(value, visible)
      if (filtered.removed.length > 0) {
        value = filtered.response
        changed = true
      }
      // What it shows may change at the owner's next decision: no client may keep it meanwhile.
      if (pinning || !governance.tools.allowsAll) {
        const bounded = withoutLongCaching(value)
        changed ||= bounded !== value
        value = bounded
      }
    } else if (replays && m.kind === 'response' && hasToolsArray(value)) {
      // Its page of the list is unknown: its tools are judged by name (a changed tool recorded,
      // a new one pinned as new, or waiting while the baseline pages), nothing is judged
      // removed, and what is not approved (or not judged yet) is left out.
      // A GET's stream lives long: it is judged by the newest pins, not those its request read.
      const state = pinning ? (rug.pins.latestState(rug.tunnel.id) ?? rug.state) : null
      if (rug !== null && state !== null) {
        const unique = firstOfEachName(value)
        if (unique.dropped > 0) {
          value = unique.response
          changed = true
        }
        rug.pins.observeReplayed(rug.tunnel, state, toolsOf(value), rug.mode, rug)
      }
      const left =
        rug !== null && state !== null ? unapprovedIn(state, toolsOf(value), rug.mode) : null
      const filtered = filterToolsList(
        value,
        (name) => governance.tools.allows(name) && !(left?.has(name) ?? false),
      )
      if (filtered.removed.length > 0) {
        value = filtered.response
        changed = true
      }
      const bounded = withoutLongCaching(value)
      changed ||= bounded !== value
      value = bounded
    }
    if (redactor !== null) {
      const { message, shapeLost } = redactor.redactMessage(value)
      // An answer whose keys could not all be scanned would reach the agent in a shape its
      // request did not ask for: the agent is told why instead.
      if (shapeLost && m.kind === 'response') {
        onWithheld(m)
        return errorResponse(m.id, JSONRPC_CODE.internalError, UNSCANNED_ANSWER)
      }
      if (message !== value) return message
    }
    return changed ? value : null
  }
  return (m) => {
    try {
      return rewrite(m)
    } catch {
      // What could not be checked never reaches the agent as it came.
      if (m.kind !== 'response') return mask('withheld')
      onWithheld(m)
      return errorResponse(m.id, JSONRPC_CODE.internalError, UNCHECKED_ANSWER)
    }
  }
}

/** Whether `response` is a `tools/list` result with a `tools` array (not an error). */
function hasToolsArray(response: Readonly<Record<string, unknown>>): boolean {
  return Array.isArray((response.result as { tools?: unknown } | null | undefined)?.tools)
}

/** The tools of a `tools/list` answer (empty when it is an error or malformed). */
function toolsOf(response: Readonly<Record<string, unknown>>): readonly unknown[] {
  const tools = (response.result as { tools?: unknown } | null | undefined)?.tools
  return Array.isArray(tools) ? tools : []
}
