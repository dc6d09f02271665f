/**
 * Endpoint signing secrets in the Standard Webhooks form: `whsec_` followed by the base64 of 32
 * random bytes (the spec asks for 24 to 64). Each endpoint has its own; the HMAC key is the
 * decoded bytes, which is what receivers' libraries (e.g. `standardwebhooks`) derive too.
 */

import { randomBytes } from 'node:crypto'

/** Prefix every endpoint secret carries. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_'

/** Random bytes in a new secret (256 bits). */
const SECRET_BYTES = 32

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64')
}

/**
 * The HMAC key of a `whsec_` secret: its base64 part decoded. Throws RangeError when the secret
 * lacks the prefix or does not decode to 24–64 bytes (a stored secret is always one we made).
 */
export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : ''
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : null
  if (key === null || key.length < 24 || key.length > 64) {
    throw new RangeError('webhook secret is not "whsec_" followed by base64 of 24 to 64 bytes')
  }
  return key
}
