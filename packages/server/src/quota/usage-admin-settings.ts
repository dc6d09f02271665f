/**
 * The `settings` keys through which `burrowd usage set` finds the running service (single
 * node, counters in its memory): the secret that authenticates it, the loopback address it
 * listens on, and which kind of live counters it runs. Written by `serve` at start.
 */

/** A random secret; `Authorization: Bearer <it>` on the admin endpoint. */
export const ADMIN_SECRET_SETTING = 'admin_secret'

/** `http://<loopback or local address>:<port>` of the last burrowd started on this database. */
export const ADMIN_URL_SETTING = 'admin_url'

/** `memory`, `redis` or `off` (`BURROW_QUOTAS=off`): where the running service counts. */
export const LIVE_COUNTERS_SETTING = 'live_counters'

/** What `LIVE_COUNTERS_SETTING` holds. */
export type LiveCountersKind = 'memory' | 'redis' | 'off'

/** The admin endpoint's path on the service host. */
export const USAGE_ADMIN_PATH = '/internal/usage'

/** Prefix of burrowd's keys in a shared Redis (counters and session places). */
export const REDIS_KEY_PREFIX = 'burrow:'
