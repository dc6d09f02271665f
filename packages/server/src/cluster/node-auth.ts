/**
 * How burrowd nodes prove to each other that they belong to the same service: a token
 * `<from>.<to>.<unix seconds>.<nonce>.<HMAC-SHA256>`, keyed by the cluster secret every node reads
 * from the shared database. It names the node it is for, so a token seen on its way to one node
 * opens no link to another; it is good for a minute either way of its time, and once
 * (`NodeTokenNonces`), so a token seen on its way cannot be replayed either.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/** Seconds a token is accepted before and after its time. */
export const NODE_TOKEN_SKEW_SECS = 60

/** What a valid token says. */
export interface NodeToken {
  /** The node that signed it. */
  readonly from: string
  /** Its one-time value, to be remembered until it expires. */
  readonly nonce: string
  /** When it stops being accepted (ms). */
  readonly expiresAt: number
}

const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/

/** A token from `from` for a link to node `to`, at `nowMs`. */
export function signNodeToken(
  secret: string,
  from: string,
  to: string,
  nowMs: number = Date.now(),
  nonce: string = randomBytes(16).toString('base64url'),
): string {
  const secs = Math.floor(nowMs / 1000)
  return `${from}.${to}.${secs}.${nonce}.${mac(secret, from, to, secs, nonce)}`
}

/** What a valid `token` for node `me` says, or null (forged, for another node, stale). */
export function verifyNodeToken(
  secret: string,
  token: string,
  me: string,
  nowMs: number = Date.now(),
): NodeToken | null {
  const parts = token.split('.')
  if (parts.length !== 5) return null
  const [from = '', to = '', secsText = '', nonce = '', given = ''] = parts
  if (!NODE_ID.test(from) || to !== me || !/^\d{1,12}$/.test(secsText)) return null
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(nonce)) return null
  const secs = Number(secsText)
  if (Math.abs(nowMs / 1000 - secs) > NODE_TOKEN_SKEW_SECS) return null
  const expected = Buffer.from(mac(secret, from, to, secs, nonce))
  const actual = Buffer.from(given)
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null
  return { from, nonce, expiresAt: (secs + NODE_TOKEN_SKEW_SECS) * 1000 + 1000 }
}

/**
 * The nonces of tokens accepted and not yet expired: a token is good once. Only valid tokens
 * (made with the cluster secret) are remembered, so the set holds what the nodes themselves made
 * in two minutes; it is bounded all the same, refusing rather than forgetting.
 */
export class NodeTokenNonces {
  readonly #seen = new Map<string, number>()
  readonly #max: number

  constructor(max = 100_000) {
    this.#max = max
  }

  /** Whether `token` is seen for the first time (and now remembered). */
  first(token: NodeToken, nowMs: number = Date.now()): boolean {
    if (this.#seen.has(token.nonce)) return false
    if (this.#seen.size >= this.#max) {
      for (const [nonce, expiresAt] of this.#seen) if (expiresAt <= nowMs) this.#seen.delete(nonce)
      if (this.#seen.size >= this.#max) return false
    }
    this.#seen.set(token.nonce, token.expiresAt)
    return true
  }
}

function mac(secret: string, from: string, to: string, secs: number, nonce: string): string {
  return createHmac('sha256', secret)
    .update(`burrow-node-link|${from}|${to}|${secs}|${nonce}`)
    .digest('base64url')
}
