/**
 * Argument checks shared by both session trackers, so they refuse the same inputs the same way.
 * Bad arguments are programming errors (the edge passes plan caps and ids it has checked), so
 * they throw RangeError.
 */

import { checkTunnelId } from './check-usage-input.js'

/** Session ids as MCP allows them: visible ASCII, of any length. */
export const MCP_SESSION_ID = /^[\x21-\x7e]+$/

/** Longest session id tracked; MCP's are UUIDs or similar, far shorter. */
export const MAX_SESSION_ID_LENGTH = 256

/** Throw RangeError unless the tunnel id is plain and `sessionId` (when given) is sensible. */
export function checkSessionInput(tunnelId: string, sessionId?: string): void {
  checkTunnelId(tunnelId, 'session tracker')
  if (sessionId === undefined) return
  if (sessionId.length === 0 || sessionId.length > MAX_SESSION_ID_LENGTH) {
    throw new RangeError(
      `session tracker: a session id must be 1-${MAX_SESSION_ID_LENGTH} characters, got ${sessionId.length}`,
    )
  }
}

/** Throw RangeError unless `cap` is a non-negative safe integer. */
export function checkCap(cap: number): void {
  if (!Number.isSafeInteger(cap) || cap < 0) {
    throw new RangeError(`session tracker: cap must be a non-negative integer, got ${cap}`)
  }
}
