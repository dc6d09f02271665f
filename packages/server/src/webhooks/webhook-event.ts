/**
 * The events burrowd sends to accounts' webhook endpoints and the body every delivery carries:
 * `{type, timestamp, data}` as Standard Webhooks recommends. One list of types, so endpoint
 * registration, the outbox and the docs agree on what exists.
 */

/** Every event type an endpoint can subscribe to (docs/webhooks.md). */
export const WEBHOOK_EVENT_TYPES = ['quota.warning', 'tool.changed'] as const

/** One of `WEBHOOK_EVENT_TYPES`. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/** True when `value` names an event type burrowd sends. */
export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value)
}

/** The JSON body of a delivery; serialised once and sent byte for byte on every attempt. */
export interface WebhookEventBody {
  readonly type: WebhookEventType
  /** When the event happened, ISO-8601 UTC. */
  readonly timestamp: string
  readonly data: Readonly<Record<string, unknown>>
}
