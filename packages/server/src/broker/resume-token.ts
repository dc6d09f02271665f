/**
 * Resume tokens: issued in WELCOME, presented in the next HELLO after a disconnect. An HMAC over
 * the tunnel id and a session id, keyed by a secret every node shares (kept in the database), so a
 * token survives a burrowd restart and works on any node.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/** How long a token stays valid at most; the grace period decides whether a session resumes. */
const TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000

/** Signs and checks resume tokens. */
export class ResumeTokens {
  private readonly secret: Buffer

  constructor(secret: string) {
    this.secret = Buffer.from(secret, 'utf8')
  }

  /** A new session id and its token for `tunnelId`. */
  issue(
    tunnelId: string,
    now: number,
    sessionId = randomBytes(12).toString('base64url'),
  ): { sessionId: string; token: string } {
    const expires = now + TOKEN_LIFETIME_MS
    const sig = this.sign(tunnelId, sessionId, expires)
    return { sessionId, token: `${sessionId}.${expires.toString(36)}.${sig}` }
  }

  /** The session id of a valid token for `tunnelId`, or null. */
  verify(tunnelId: string, token: string, now: number): string | null {
    const [sessionId, expiresText, sig] = token.split('.')
    if (!sessionId || !expiresText || !sig) return null
    const expires = parseInt(expiresText, 36)
    if (!Number.isFinite(expires) || expires < now) return null
    const expected = Buffer.from(this.sign(tunnelId, sessionId, expires))
    const given = Buffer.from(sig)
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
    return sessionId
  }

  private sign(tunnelId: string, sessionId: string, expires: number): string {
    return createHmac('sha256', this.secret)
      .update(`${tunnelId}\n${sessionId}\n${expires}`)
      .digest('base64url')
  }
}
