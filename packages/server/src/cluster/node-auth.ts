/**
 * How burrowd nodes prove to each other that they belong to the same service: a token
 * `<node id>.<unix seconds>.<HMAC-SHA256>` over the id and time, keyed by the cluster secret
 * every node reads from the shared database. Tokens are good for a minute either way of now.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

/** Seconds a token is accepted before and after its time. */
const SKEW_SECS = 60

/** A token for `nodeId` at `nowMs`. */
export function signNodeToken(secret: string, nodeId: string, nowMs: number = Date.now()): string {
  const secs = Math.floor(nowMs / 1000)
  return `${nodeId}.${secs}.${mac(secret, nodeId, secs)}`
}

/** The node id a valid `token` names, or null. */
export function verifyNodeToken(
  secret: string,
  token: string,
  nowMs: number = Date.now(),
): string | null {
  const parts = token.split('.')
  if (parts.length !== 3) return null
  const [nodeId = '', secsText = '', given = ''] = parts
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(nodeId) || !/^\d{1,12}$/.test(secsText)) return null
  const secs = Number(secsText)
  if (Math.abs(nowMs / 1000 - secs) > SKEW_SECS) return null
  const expected = Buffer.from(mac(secret, nodeId, secs))
  const actual = Buffer.from(given)
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? nodeId : null
}

function mac(secret: string, nodeId: string, secs: number): string {
  return createHmac('sha256', secret).update(`burrow-node|${nodeId}|${secs}`).digest('base64url')
}
