/**
 * Streams a tunnelled response to the agent. The request was forwarded while its usage count
 * was still being written; the agent's answer waits until that count is durable, so nothing the
 * agent was answered for goes uncounted after a crash. If the count cannot be stored, the
 * upstream call is cancelled and the agent gets a 503 instead of the answer. An agent that
 * hangs up cancels the stream; a stream reset becomes the refusal that fits it.
 */
import type { ServerResponse } from 'node:http'
import {
  POLICY_STATUS,
  RESET_CODE,
  type RefusedId,
  type Logger,
  type MuxStream,
  type ResponseHead,
} from '@burrow/protocol'
import type { ExchangeRecord } from './exchange-record.js'
import { agentResponseHeaders } from './forward-headers.js'
import { sendRefusal } from '../http/send-refusal.js'

/** What `relayResponse` needs besides the stream and the agent's response. */
export interface RelayContext {
  /** Ids of the request's JSON-RPC messages, for refusals. */
  readonly ids: RefusedId | RefusedId[]
  readonly record: ExchangeRecord
  /** Settles when the request's count is durable (null when nothing is counted). */
  readonly counted: Promise<void> | null
  readonly log: Logger
}

/** Relay `stream`'s response to `res`. */
export function relayResponse(stream: MuxStream, res: ServerResponse, ctx: RelayContext): void {
  const { ids, record } = ctx
  stream.onReset = (code, reason) => {
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
  res.on('close', () => {
    if (!res.writableFinished && !stream.closed)
      stream.reset(RESET_CODE.cancel, 'the agent disconnected')
  })
  if (ctx.counted === null) {
    deliver(stream, res, record, null)
    return
  }
  // Hold the head back until the count is stored; DATA waits in the stream meanwhile.
  let held: [ResponseHead, Uint8Array | undefined, boolean] | null = null
  stream.onResponse = (head, inline, fin) => {
    held = [head, inline, fin]
  }
  ctx.counted.then(
    () => {
      if (res.destroyed || res.headersSent) return
      deliver(stream, res, record, held)
    },
    (error: Error) => {
      ctx.log.error(`edge: a forwarded request could not be counted: ${error.message}`)
      stream.onReset = null
      stream.reset(RESET_CODE.cancel, 'burrowd could not record the request')
      if (res.destroyed || res.headersSent) return
      record.refused(POLICY_STATUS.tunnel_offline, 'tunnel_offline')
      sendRefusal(
        res,
        'tunnel_offline',
        'internal error',
        'burrowd could not record this request; it was not counted and its answer was withheld',
        { id: ids },
      )
    },
  )
}

/**
 * Write the response head, then the body as it streams, to the agent; `held` is a head that
 * arrived while the answer was held back (its body bytes wait in the stream).
 */
function deliver(
  stream: MuxStream,
  res: ServerResponse,
  record: ExchangeRecord,
  held: [ResponseHead, Uint8Array | undefined, boolean] | null,
): void {
  stream.onResponse = (head, inline, fin) => {
    if (res.destroyed) return
    record.answered(head.status, head.headers)
    if (inline) record.bytes(inline.length)
    const headers = agentResponseHeaders(head.headers)
    if (fin) {
      headers.push('content-length', String(inline?.length ?? 0))
      res.writeHead(head.status, headers)
      res.end(inline)
      return
    }
    res.writeHead(head.status, headers)
    res.flushHeaders()
    if (inline) res.write(inline)
  }
  // The head first: reading delivers the body bytes that waited for it at once.
  if (held) stream.onResponse(...held)
  stream.read(
    (chunk) => {
      if (res.destroyed) return true
      record.bytes(chunk.length)
      return res.write(chunk)
    },
    () => res.end(),
  )
  res.on('drain', () => stream.resumeReading())
}
