/**
 * A node starting with several nodes (Redis) waits until it hears the events the others publish
 * before it serves: what they publish before then (a shared rate limit's spend, a changed policy)
 * would be missed. Only up to a bound: a Redis that is down or does not answer must not keep a
 * node from starting. Past it the node serves, warned of, and hears the others once Redis
 * confirms (its subscriber keeps trying).
 */
import type { Logger } from '@burrow/protocol'

/** Milliseconds a starting node waits for its subscription to the cluster events. */
export const SUBSCRIPTION_WAIT_MS = 5_000

/**
 * Resolve true once `events` receive what other nodes publish, or false after `waitMs`, having
 * warned that the node serves without them for now.
 */
export async function subscribedWithin(
  events: { ready(): Promise<void> },
  waitMs: number,
  log: Logger,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const subscribed = events.ready().then(() => true)
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), waitMs)
  })
  const heard = await Promise.race([subscribed, expired])
  clearTimeout(timer)
  if (!heard) {
    log.warn(
      `cluster events: not subscribed in Redis after ${waitMs} ms; serving anyway: until it is, ` +
        'events other nodes publish are missed (shared rate limits start here from full ' +
        'buckets, and what this node caches stays until it expires when another node changes it)',
    )
  }
  return heard
}
