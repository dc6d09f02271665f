/**
 * How the edge ends a response the bandwidth quota cuts (quota/quota-gate.ts: the tunnel's month
 * went too far past its limit, or its account moved to a plan whose limit it is past). A response
 * whose head has gone is reset: nothing more can be written into it that the agent would not read
 * as part of it. One still waiting for its answer gets the 429 `quota_exceeded` envelope with its
 * request's ids, as a request refused at admission does; it was reset too, and the agent's SDK
 * could not match the reset to its call (found by a review).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendRefusal } from '../http/send-refusal.js'
import { QUOTA_MESSAGE, RESPONSE_CUT_REASON } from '../quota/quota-refusal.js'
import { refusedIdsOf } from './request-ids.js'

/** End the response to `req` the quota cut. */
export function cutResponse(req: IncomingMessage, res: ServerResponse): void {
  if (res.headersSent || res.writableEnded) {
    res.destroy()
    return
  }
  sendRefusal(res, 'quota_exceeded', QUOTA_MESSAGE, RESPONSE_CUT_REASON, {
    id: refusedIdsOf(req),
    close: true,
  })
}
