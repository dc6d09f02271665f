/**
 * The refusals of a POST body the edge would not read whole: past the size limit (the rest is left
 * unread, so the connection closes), or past the bounds on bodies held at once (`BodyBudget`: the
 * rest was read and thrown away, so the connection stays and the sender gets the answer).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendRefusal } from '../http/send-refusal.js'

/**
 * Answer `req`'s body that was `too_large` (over `limit` bytes) or `over_budget`. The latter's
 * answer goes at once and ends when the discarded rest has (see `sendRefusal`'s `endAfter`).
 */
export function sendBodyRefusal(
  req: IncomingMessage,
  res: ServerResponse,
  outcome: 'too_large' | 'over_budget',
  limit: number,
): void {
  if (outcome === 'too_large') {
    sendRefusal(
      res,
      'payload_too_large',
      'request too large',
      `request bodies are limited to ${limit} bytes`,
      { close: true },
    )
    return
  }
  sendRefusal(
    res,
    'rate_limited',
    'too many request bodies at once',
    'too many request bodies are held at once for this address, this tunnel or this service; send it again in a moment',
    { headers: { 'retry-after': '1' }, endAfter: req },
  )
}
