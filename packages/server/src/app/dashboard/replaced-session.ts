/**
 * The session a sign-in, sign-up or password reset replaces: the one whose cookie the request
 * carried, whichever account's. Its cookie is overwritten, so no browser of its owner holds it
 * any more; left alone, it stayed valid for up to 30 days (its sliding expiry), for anyone who
 * had taken a copy of the cookie before.
 */
import type { IncomingMessage } from 'node:http'
import type { DashboardKit } from './dashboard-kit.js'

/** End the session `req` carried (if any) and its live tails. */
export async function endReplacedSession(kit: DashboardKit, req: IncomingMessage): Promise<void> {
  const token = kit.sessionCookie(req)
  if (token === undefined || token === '') return
  await kit.svc.sessions.delete(token)
  kit.tails.end(token)
}
