/**
 * `POST /webhooks/paddle`: where the payment provider (Paddle, or the dev stand-in) sends its
 * signed events. The body is read raw (the signature covers the exact bytes) and bounded, then
 * handed to `BillingService.handleWebhook`; the answer is JSON.
 */

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { readBody } from '../http/read-body.js'
import { sendJson } from '../http/responses.js'
import type { WebhookResponse } from './webhook-response.js'

/** The path Paddle's notification destination points at. */
export const PADDLE_WEBHOOK_PATH = '/webhooks/paddle'

/** Largest webhook body accepted; Paddle's subscription events are a few KiB. */
export const PADDLE_WEBHOOK_MAX_BYTES = 64 * 1024

/** What the route needs: `BillingService`'s webhook handler. */
export interface PaddleWebhookHandler {
  handleWebhook(rawBody: Buffer, headers: IncomingHttpHeaders): Promise<WebhookResponse>
}

/** Handles `POST /webhooks/paddle`. */
export class PaddleWebhookRoute {
  readonly #handler: PaddleWebhookHandler

  constructor(handler: PaddleWebhookHandler) {
    this.#handler = handler
  }

  /** Answer one request to the webhook path (any method: others get 405). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      return sendJson(
        res,
        405,
        { error: 'method_not_allowed', message: `${PADDLE_WEBHOOK_PATH} accepts POST` },
        {
          allow: 'POST',
        },
      )
    }
    const raw = await readBody(req, PADDLE_WEBHOOK_MAX_BYTES)
    if (raw === 'aborted') return
    if (raw === 'too_large') {
      return sendJson(
        res,
        413,
        {
          error: 'payload_too_large',
          message: `a webhook body may be at most ${PADDLE_WEBHOOK_MAX_BYTES} bytes`,
        },
        { connection: 'close' },
      )
    }
    const answer = await this.#handler.handleWebhook(raw, req.headers)
    res.writeHead(answer.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(answer.body),
      'cache-control': 'no-store',
    })
    res.end(answer.body)
  }
}
