/** A payment-provider webhook's answer, as `BillingService.handleWebhook` gives it. */

/** A webhook's answer. */
export interface WebhookResponse {
  readonly status: number
  /** JSON. */
  readonly body: string
}

/** The answer with `status` and `body` as JSON. */
export function reply(status: number, body: unknown): WebhookResponse {
  return { status, body: JSON.stringify(body) }
}
