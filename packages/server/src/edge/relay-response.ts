/**
 * Streams a tunnelled response to the agent. An agent that hangs up cancels the stream; a stream
 * reset becomes the refusal that fits it.
 */
import type { ServerResponse } from 'node:http'
import {
  POLICY_STATUS,
  RESET_CODE,
  responseKind,
  type HeaderPairs,
  type ResponseKind,
  type ResponseHead,
  type ResponseMessages,
  type RefusedId,
  type Logger,
  type MuxStream,
} from '@burrow/protocol'
import type { ExchangeRecord } from './exchange-record.js'
import { agentResponseHeaders, utf8ContentType } from './forward-headers.js'
import { sendRefusal } from '../http/send-refusal.js'
import {
  cutOff,
  headFailed,
  overflowed,
  policyUnread,
  refuseUnreadable,
} from './answer-refusals.js'
import { answerSessionIdProblem } from './answer-session-id.js'
import { readGated, type ReadGate } from './gated-reader.js'
import { AgentWriter } from './agent-writer.js'
import { redactResponseHeaders } from './redact-headers.js'
import { unreadableAnswer } from './unreadable-answer.js'
import type { Redactor } from '../governance/redactor.js'

/** What `relayResponse` needs besides the stream and the agent's response. */
export interface RelayContext {
  /** Ids of the request's JSON-RPC messages, for refusals. */
  readonly ids: RefusedId | RefusedId[]
  readonly record: ExchangeRecord
  /**
   * Open the request again when the stream is refused before any processing (the client or the
   * node holding it was moving to a new connection): null when it should not be tried again.
   */
  readonly retry?: (() => Promise<MuxStream | null>) | null
  readonly log: Logger
  /** Taps (and may rewrite) the answer's JSON-RPC messages, given how it carries them; or null. */
  readonly shape?: ((kind: ResponseKind) => ResponseMessages | null) | null
  /** Masks the answer's header values (forwarded redaction); null or absent for none. */
  readonly redactor?: Redactor | null
  /** Instead of `redactor`: the one of the policy the head passed the gate under. */
  readonly liveRedactor?: (() => Redactor | null) | null
  /** Checked before each body chunk (a GET stream's live policy, gated-reader.ts); or none. */
  readonly gate?: ReadGate | null
}

/**
 * Characters of a tunnel client's reset reason the agent is shown: the refusal is counted nowhere,
 * and a reason of 4 KiB on every bodiless GET moved data past the bandwidth quota.
 */
export const MAX_RESET_REASON_CHARS = 200

/** Relay `stream`'s response to `res`. */
export function relayResponse(stream: MuxStream, res: ServerResponse, ctx: RelayContext): void {
  const { ids, record } = ctx
  const fail = (code: number, told: string) => {
    const reason =
      told.length > MAX_RESET_REASON_CHARS ? `${told.slice(0, MAX_RESET_REASON_CHARS)}…` : told
    if (res.headersSent) {
      res.destroy()
      return
    }
    if (code === RESET_CODE.internal || code === RESET_CODE.refused) {
      record.refused(POLICY_STATUS.tunnel_offline, 'tunnel_offline')
      sendRefusal(
        res,
        'tunnel_offline',
        'tunnel offline',
        `the tunnel client went away during the request: ${reason}`,
        { id: ids },
      )
    } else {
      record.refused(POLICY_STATUS.upstream_unreachable, 'upstream_unreachable')
      sendRefusal(res, 'upstream_unreachable', 'upstream failed', reason, { id: ids })
    }
  }
  /** Stops reading `current` (what waits at the gate is dropped); set by `deliver`. */
  let stopReading = (): void => {}
  /** The stream of the request's latest sending (a refused one is sent again). */
  let current = stream
  const relay = (sending: MuxStream): void => {
    current = sending
    sending.onReset = (code, reason) => {
      stopReading()
      const retry = ctx.retry
      if (code === RESET_CODE.refused && retry && !res.headersSent && !res.destroyed) {
        retry().then(
          (next) => {
            if (next !== null && !res.destroyed) relay(next)
            else fail(code, reason)
          },
          () => fail(code, reason),
        )
        return
      }
      fail(code, reason)
    }
    stopReading = deliver(sending, res, ctx)
  }
  // Once, however often the request is sent: a listener a sending made a leak warning per request.
  // However the exchange ended, its stream ends with it: one the edge answered itself (access
  // taken away, the quota cut it) while the tunnel client had not answered stayed open before,
  // with what waited of the body queued, until the tunnel connection closed.
  res.on('close', () => {
    stopReading() // nothing waiting at the gate is held for an agent gone
    if (current.closed) return
    current.reset(
      RESET_CODE.cancel,
      res.writableFinished ? 'the edge answered the request' : 'the agent disconnected',
    )
  })
  relay(stream)
}

/**
 * Write the response head, then the body as it streams, to the agent. With `shape`, the
 * body's JSON-RPC messages are tapped and may be rewritten (ResponseMessages): SSE event by
 * event; a JSON body being rewritten is held whole and sent with its new length. Returns what
 * stops the reading (gated-reader.ts).
 */
function deliver(stream: MuxStream, res: ServerResponse, ctx: RelayContext): () => void {
  const { record } = ctx
  let shaper: ResponseMessages | null = null
  /** The head, while a rewritten JSON body is held back. */
  let waiting: { status: number; headers: string[] } | null = null
  /** The head, while a JSON body only tapped holds back its first chunk (it may be cut). */
  let deferred: { head: ResponseHead; headers: string[] } | null = null
  /** Send the head held back; false when the agent's response refused it (answered as failed). */
  const sendDeferred = (): boolean => {
    if (deferred === null) return true
    const { head, headers } = deferred
    deferred = null
    try {
      res.writeHead(head.status, headers)
    } catch (err) {
      headFailed(stream, res, ctx, `the answer's head could not be sent: ${(err as Error).message}`)
      return false
    }
    record.answered(head.status, head.headers)
    return true
  }
  /** True once a body byte was written (the head went with it). */
  let wrote = false
  /** Made at the first byte: a sending refused before its answer leaves nothing on `res`. */
  let agentWriter: AgentWriter | null = null
  const writer = (): AgentWriter =>
    (agentWriter ??= new AgentWriter(res, () => stream.resumeReading()))
  const send = (chunks: readonly Uint8Array[]): boolean => {
    let more = true
    for (const chunk of chunks) {
      if (chunk.length === 0) continue
      if (!sendDeferred()) return false
      wrote = true
      record.bytes(chunk.length)
      more = writer().write(chunk) && more
    }
    return more
  }
  const onHead = (head: ResponseHead, inline: Uint8Array | undefined, fin: boolean): void => {
    if (inline) record.received(inline.length)
    // Answered already (the request's access was revoked meanwhile: edge.ts).
    if (res.destroyed || res.writableEnded) return
    if (head.status < 200) {
      // An interim status is not an answer (and 101 would hand the agent's socket over).
      return headFailed(stream, res, ctx, `the tunnel client answered status ${head.status}`)
    }
    const sessionProblem = answerSessionIdProblem(head.headers)
    if (sessionProblem !== null) return headFailed(stream, res, ctx, sessionProblem)
    try {
      answer(head, inline, fin)
    } catch (err) {
      // Whatever the head held that the agent's response refused to take: this stream fails,
      // the process and every other stream go on.
      headFailed(stream, res, ctx, `the answer's head could not be sent: ${(err as Error).message}`)
    }
  }
  const answer = (head: ResponseHead, inline: Uint8Array | undefined, fin: boolean): void => {
    // The head is noted as the answer once the agent's response took it (a head it refuses is
    // answered as a failure instead, and settles no session), or once it is held back whole.
    const contentType = headerValue(head.headers, 'content-type')
    const kind = responseKind(contentType)
    let shaped = ctx.shape?.(kind) ?? null
    const empty = fin && (inline === undefined || inline.length === 0)
    const unreadable = shaped === null ? null : unreadableAnswer(head, kind, contentType, empty)
    if (
      shaped !== null &&
      unreadable !== null &&
      !(unreadable.asText && shaped.readsText && !shaped.mustRead)
    ) {
      // The edge asks for answers as they are (accept-encoding: identity); a server that
      // compresses anyway, or labels an answer as neither JSON nor SSE, sends what the edge
      // cannot read. Only tapped, it goes on untapped; one the policy must rewrite, or that
      // rug-pull protection watches, cannot be checked, so it is not sent. One that answers
      // nothing (notifications only) is redacted as text when it is not compressed.
      shaped.release()
      // Where listings are checked, one an agent could still read messages from is not sent
      // either: it could carry a listing (its own answer, or one followed elsewhere).
      if (shaped.mustRead || (shaped.cutsStrays && unreadable.agentsRead)) {
        return void refuseUnreadable(stream, res, ctx, unreadable.why)
      }
      shaped = null
      ctx.record.answerCut()
    }
    shaper = shaped
    // An answer Node cannot send chunked (HTTP/1.0, or 0.9, which Node reads too) ends where
    // its connection closes, so one cut short looks whole: where stray listings are cut, such an
    // agent gets each SSE event once it is complete and checked, and a JSON answer once read
    // whole and checked (with its length; one too large is refused).
    if (shaped?.cutsStrays && kind !== 'other' && !res.useChunkedEncodingByDefault) {
      shaped.writeWhole()
    }
    // Whatever way the answer ends, its copy is given back.
    if (shaped) res.once('close', () => shaped.release())
    const headers = agentResponseHeaders(
      redactResponseHeaders(ctx.liveRedactor?.() ?? ctx.redactor ?? null, head.headers),
    )
    // Rewritten, the answer is read and written as UTF-8, and the agent must read it so too.
    // So is an SSE answer where stray listings are cut: some agents (httpx) decode events in the
    // charset the server names, and would read events in UTF-16 the edge never saw.
    const utf8 =
      (shaped?.rewrites && (kind !== 'other' || shaped.readsText)) ||
      (shaped?.cutsStrays && kind === 'sse')
    if (utf8) {
      for (let i = 0; i < headers.length; i += 2) {
        if (headers[i] === 'content-type') headers[i + 1] = utf8ContentType(headers[i + 1]!)
      }
    }
    if (fin) {
      const body = shaped ? concat([...shaped.push(inline ?? EMPTY), ...shaped.end()]) : inline
      if (shaped?.cut) return void cutOff(stream, res, ctx, shaped)
      if (shaped && unchecked(shaped)) {
        overflowed(stream, res, ctx, shaped)
        return
      }
      if (shaped && notJsonRpc(shaped, head.status)) {
        return void refuseUnreadable(stream, res, ctx, NOT_JSON_RPC)
      }
      if (!bodiless(head.status)) headers.push('content-length', String(body?.length ?? 0))
      res.writeHead(head.status, headers)
      record.answered(head.status, head.headers)
      record.bytes(body?.length ?? 0)
      res.end(body)
      return
    }
    if (shaped?.holdsBody) {
      record.answered(head.status, head.headers)
      waiting = { status: head.status, headers }
      if (inline) shaped.push(inline)
      if (shaped.cut) return void cutOff(stream, res, ctx, shaped)
      if (unchecked(shaped)) overflowed(stream, res, ctx, shaped)
      return
    }
    const first = inline && shaper ? shaper.push(inline) : inline ? [inline] : []
    if (shaper?.cut) return void cutOff(stream, res, ctx, shaper)
    if (kind === 'json' && shaper?.holdsLast) {
      // The agent reads a JSON answer whole: its head waits for its first bytes, so that an
      // answer cut before any is still refused with the request's id.
      deferred = { head, headers }
      return
    }
    res.writeHead(head.status, headers)
    record.answered(head.status, head.headers)
    send(first)
    // An SSE answer may stay silent for a while, and the agent waits for its head: it leaves by
    // itself at the latest after this turn, and with the first body bytes when they came in the
    // same read from the tunnel (one write to the agent, not two).
    if (!wrote)
      setImmediate(() => {
        if (!wrote && !res.destroyed && !res.writableEnded) res.flushHeaders()
      })
  }
  return readGated(stream, ctx.gate ?? null, {
    head: onHead,
    chunk: (chunk) => {
      // Counted as it came, not as it is sent: what the policy drops crossed the edge too.
      record.received(chunk.length)
      if (res.destroyed) return true
      if (!shaper) return send([chunk])
      const out = shaper.push(chunk)
      if (shaper.cut) return cutOff(stream, res, ctx, shaper)
      if (unchecked(shaper)) return overflowed(stream, res, ctx, shaper)
      return send(out)
    },
    failed: (err) => policyUnread(stream, res, ctx, err),
    end: () => {
      if (res.destroyed) return
      const rest = shaper?.end() ?? []
      if (shaper?.cut) return void cutOff(stream, res, ctx, shaper)
      if (shaper && unchecked(shaper)) return void overflowed(stream, res, ctx, shaper)
      if (waiting !== null) {
        if (shaper && notJsonRpc(shaper, waiting.status)) {
          return void refuseUnreadable(stream, res, ctx, NOT_JSON_RPC)
        }
        const body = concat(rest)
        record.bytes(body.length)
        res.writeHead(
          waiting.status,
          bodiless(waiting.status)
            ? waiting.headers
            : [...waiting.headers, 'content-length', String(body.length)],
        )
        res.end(body)
        return
      }
      send(rest)
      if (!sendDeferred()) return
      agentWriter?.flush()
      res.end()
    },
  })
}

/** Whether `shaper` had to rewrite, or write whole, a JSON answer it could not hold whole. */
function unchecked(shaper: ResponseMessages): boolean {
  return (shaper.rewrites || shaper.writesWhole) && shaper.overflowed
}

const EMPTY = new Uint8Array(0)

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
}

/** Why a rewritten JSON answer is refused when its body is not JSON-RPC. */
const NOT_JSON_RPC = 'is labelled JSON but is not JSON-RPC'

/** Whether `shaper` rewrites a successful JSON answer whose body it could not read. */
function notJsonRpc(shaper: ResponseMessages, status: number): boolean {
  return shaper.rewrites && shaper.unparsed && status >= 200 && status < 300
}

function headerValue(headers: HeaderPairs, name: string): string | undefined {
  for (const [n, v] of headers) if (n.length === name.length && n.toLowerCase() === name) return v
  return undefined
}

/** Statuses whose answers carry no body, and so no Content-Length (RFC 9110 §8.6, §15.3.5). */
function bodiless(status: number): boolean {
  return status === 204 || status === 304
}
