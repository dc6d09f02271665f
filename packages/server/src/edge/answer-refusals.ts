/**
 * The ways the edge refuses an answer it relays: a head the agent's response would not take, an
 * answer too large for the policy to check, one it cannot read, one that carries a listing its
 * request did not make, a stream the tunnel's policy could not be read for. Each stops the tunnel
 * stream; the agent gets the refusal envelope with the request's ids, or, once the answer had
 * begun, an answer ended short.
 */
import type { ServerResponse } from 'node:http'
import { POLICY_STATUS, RESET_CODE, type MuxStream, type ResponseMessages } from '@burrow/protocol'
import { sendRefusal } from '../http/send-refusal.js'
import type { RelayContext } from './relay-response.js'

/** The tunnel client's head cannot go to the agent: reset the stream, answer the refusal. */
export function headFailed(
  stream: MuxStream,
  res: ServerResponse,
  ctx: RelayContext,
  reason: string,
): void {
  stream.onReset = null
  if (!stream.closed) stream.reset(RESET_CODE.protocol, reason)
  ctx.log.warn(`edge: ${reason}`)
  if (res.headersSent) {
    res.destroy()
    return
  }
  ctx.record.refused(POLICY_STATUS.upstream_unreachable, 'upstream_unreachable')
  sendRefusal(res, 'upstream_unreachable', 'upstream failed', reason, { id: ctx.ids })
}

/**
 * A JSON answer to rewrite grew past its bound, or past what the node may hold of answers at once
 * (`answer-budget.ts`): it cannot be checked, so it is not sent.
 */
export function overflowed(
  stream: MuxStream,
  res: ServerResponse,
  ctx: RelayContext,
  shaper: ResponseMessages,
): boolean {
  if (res.headersSent) return true // refused already
  stream.onReset = null
  if (!stream.closed)
    stream.reset(RESET_CODE.cancel, 'the answer is too large for the tunnel policy to check')
  shaper.release()
  ctx.record.refused(POLICY_STATUS.upstream_unreachable, 'upstream_unreachable')
  sendRefusal(
    res,
    'upstream_unreachable',
    'answer too large',
    shaper.overBudget
      ? "the edge holds as many answers as it may for checking against the tunnel's policy " +
          '(tool filtering or redaction); this one was not forwarded'
      : "the local server's answer is larger than the edge can check against the tunnel's policy " +
          '(tool filtering or redaction); it was not forwarded',
    { id: ctx.ids },
  )
  return true
}

/** Why an answer that carried a listing its request did not make is cut off. */
export const STRAY_LISTING =
  "the local server's answer carries the answer to a tools/list this request did not make " +
  '(an agent would take it as the answer to a listing of its own, unchecked against the ' +
  "tunnel's tool policy); it was not forwarded"

/**
 * The answer carried a message that may never reach the agent (ResponseMessages' `cutsOn`): the
 * stream stops, and the agent gets the refusal, or, when the answer had begun, an answer ended
 * short (never read whole).
 */
export function cutOff(
  stream: MuxStream,
  res: ServerResponse,
  ctx: RelayContext,
  shaper: ResponseMessages,
): boolean {
  if (res.writableEnded) return true // refused already
  stream.onReset = null
  if (!stream.closed) stream.reset(RESET_CODE.cancel, 'the answer carries a stray listing')
  shaper.release()
  ctx.log.warn(`edge: ${STRAY_LISTING}`)
  // History notes the refusal, whether or not the answer had begun.
  ctx.record.refused(POLICY_STATUS.upstream_unreachable, 'upstream_unreachable', STRAY_LISTING)
  if (res.headersSent) {
    res.destroy() // the answer had begun: it ends short
    return true
  }
  sendRefusal(res, 'upstream_unreachable', 'answer refused', STRAY_LISTING, { id: ctx.ids })
  return true
}

/** An answer the policy must read came in a form the edge cannot read: it is not sent. */
export function refuseUnreadable(
  stream: MuxStream,
  res: ServerResponse,
  ctx: RelayContext,
  why: string,
): void {
  stream.onReset = null
  if (!stream.closed) stream.reset(RESET_CODE.cancel, 'the answer cannot be read')
  ctx.record.refused(POLICY_STATUS.upstream_unreachable, 'upstream_unreachable')
  sendRefusal(
    res,
    'upstream_unreachable',
    'answer unreadable',
    `the local server's answer ${why}, which the edge cannot check against the tunnel's ` +
      'policy (tool filtering, redaction or rug-pull protection); it was not forwarded',
    { id: ctx.ids },
  )
}

/**
 * The tunnel's policy could not be read for what comes next on a stream (a GET stream applies it
 * as it is when each chunk passes): the stream stops, as nothing may pass unchecked.
 */
export function policyUnread(
  stream: MuxStream,
  res: ServerResponse,
  ctx: RelayContext,
  err: Error,
): void {
  stream.onReset = null
  if (!stream.closed) stream.reset(RESET_CODE.cancel, "the tunnel's policy could not be read")
  ctx.log.warn(`edge: the tunnel's policy could not be read for an open stream: ${err.message}`)
  if (res.headersSent) {
    res.destroy() // the answer had begun: it ends short, and the agent opens its stream again
    return
  }
  ctx.record.refused(POLICY_STATUS.upstream_unreachable, 'upstream_unreachable')
  sendRefusal(
    res,
    'upstream_unreachable',
    'policy unread',
    "the tunnel's policy could not be read to check the local server's answer; it was not forwarded",
    { id: ctx.ids },
  )
}
