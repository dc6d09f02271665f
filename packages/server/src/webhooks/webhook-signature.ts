/**
 * The Standard Webhooks v1 signature: base64 HMAC-SHA256, keyed with the endpoint's decoded
 * secret, over `${id}.${timestamp}.${body}`, written `v1,<signature>` in `webhook-signature`.
 * Neither the id nor the timestamp may contain a dot, or the signed content would be ambiguous.
 */

import { createHmac } from 'node:crypto'
import { webhookSecretKey } from './webhook-secret.js'

/**
 * The `webhook-signature` header value for one attempt: `v1,<base64>`. `timestamp` is the
 * attempt's Unix time in whole seconds. Throws RangeError for an id with a dot or an invalid
 * timestamp or secret.
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  if (id === '' || id.includes('.')) {
    throw new RangeError(`webhook id "${id}" must be non-empty and contain no "."`)
  }
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`webhook timestamp ${timestamp} is not whole Unix seconds`)
  }
  const mac = createHmac('sha256', webhookSecretKey(secret))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64')
  return `v1,${mac}`
}

/**
 * The `webhook-signature` header value signed with each of `secrets` (the endpoint's, then the
 * one a rotation replaced while it still signs), space-separated as Standard Webhooks has it:
 * a receiver accepts the request if any signature matches a secret it holds.
 */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  return secrets.map((secret) => signWebhook(secret, id, timestamp, body)).join(' ')
}

/**
 * The secrets that sign an endpoint's deliveries at `now` (ISO-8601 UTC): its own, then the one
 * a rotation replaced while it still signs.
 */
export function signingSecrets(
  endpoint: {
    readonly secret: string
    readonly previous_secret: string | null
    readonly previous_secret_expires_at: string | null
  },
  now: string,
): string[] {
  const previous = endpoint.previous_secret
  return previous !== null && (endpoint.previous_secret_expires_at ?? '') > now
    ? [endpoint.secret, previous]
    : [endpoint.secret]
}
