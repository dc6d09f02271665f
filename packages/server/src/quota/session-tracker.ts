/**
 * Concurrent MCP sessions per tunnel (the plan catalog in `plans.ts`: Free 3, Pro 10, Scale 25;
 * docs/decisions.md#quotas-and-sessions). A session opens when the upstream answers an `initialize`
 * with `Mcp-Session-Id`, and ends on DELETE, on a 404 from the upstream for it, or after an idle
 * timeout that every request carrying it restarts. A session is in use while it is held (a
 * request of it is being answered or its GET stream is open: `hold`, renewed as a lease, until
 * `letGo`); when the cap is full, a new session takes the place of the session idle the longest,
 * so the cap counts sessions really in use (docs/decisions.md#sessions-in-use). An arriving
 * `initialize` first reserves a place, so concurrent initializes cannot pass the cap; the
 * reservation becomes the session, or is released when none opened. A session that lost its
 * place while idle takes one back (a free one, or an idle session's) when it is used again, and
 * is refused while every place is in use; sessions in use are never killed by the cap. One
 * interface, two implementations side by side: `MemorySessionTracker` (one node) and
 * `RedisSessionTracker` (several nodes, a ZSET per tunnel scored by expiry and changed by Lua).
 */

/** The outcome of `reserve`. */
export type ReserveResult =
  | {
      readonly ok: true
      readonly reservation: string
      /** The idle session whose place was taken, if the cap was full. */
      readonly displaced?: string
    }
  | { readonly ok: false; readonly open: number }

/** Options common to both implementations. */
export interface SessionTrackerOptions {
  /** A session with no request for this long is no longer counted (`BURROW_SESSION_IDLE_SECS`). */
  readonly idleMs: number
  /**
   * How long a reservation holds its place if it is neither turned into a session nor released
   * (only when the node that made it dies mid-initialize). Default 120 s.
   */
  readonly reservationMs?: number
  /**
   * How long a `hold` keeps a session in use unless renewed (the node holding it renews it while
   * the request or stream lasts; the lease only matters when that node dies). Default 60 s.
   */
  readonly leaseMs?: number
  /** The time used when a call passes no `now` (tests pass their own). */
  readonly clock?: () => Date
}

/** Default of `SessionTrackerOptions.reservationMs`. */
export const DEFAULT_RESERVATION_MS = 120_000

/** Default of `SessionTrackerOptions.leaseMs`. */
export const DEFAULT_LEASE_MS = 60_000

/**
 * Live sessions and reservations per tunnel. Expired entries (expiry ≤ now) count for nothing.
 * Session ids are the upstream's, scoped by tunnel.
 */
export interface SessionTracker {
  /**
   * Hold a place for an `initialize` of `tunnelId`. When `cap` places are taken by live sessions
   * and reservations, the live session not in use whose last use is oldest gives its place
   * (`displaced`); when every place is in use or reserved, refuse. Atomic, so concurrent callers
   * on every node never pass `cap`.
   */
  reserve(tunnelId: string, cap: number, now?: Date): Promise<ReserveResult>

  /**
   * The initialize holding `reservation` opened `sessionId`: the session takes the place (even
   * if the reservation expired meanwhile: the initialize was admitted), idle from `now`, or with
   * `held` in use from `now` (its answer is still streaming) until `letGo` or the lease ends, as
   * `hold` would leave it.
   */
  open(
    tunnelId: string,
    reservation: string,
    sessionId: string,
    now?: Date,
    held?: boolean,
  ): Promise<void>

  /** Give the place of `reservation` back: its initialize failed or opened no session. */
  release(tunnelId: string, reservation: string): Promise<void>

  /**
   * A request carried `sessionId`: a live session stays for another idle timeout from `now`.
   * Unknown or expired ids change nothing (an agent cannot add sessions by inventing ids).
   */
  touch(tunnelId: string, sessionId: string, now?: Date): Promise<void>

  /**
   * A request of `sessionId` is being forwarded: the session is in use until `letGo` or `now` +
   * the lease, and idle for a timeout after that; true. An id the tracker does not count
   * (displaced while idle, expired, or one it never saw: a server that ignores sessions answers
   * any id) takes a free place, else the place of the session not in use whose last use is
   * oldest, as a new session would; when every place is in use or reserved, nothing changes and
   * the answer is false. So no more than `cap` sessions are ever in use at once, and invented
   * ids cannot add places. Renewing a hold is holding again (`renewing`): with several nodes, a
   * session in use on one node whose place was lost (Redis restarted empty) stays marked in use
   * by the renewal, uncounted, so that its requests through another node go on.
   */
  hold(
    tunnelId: string,
    sessionId: string,
    cap: number,
    now?: Date,
    renewing?: boolean,
  ): Promise<boolean>

  /** Nothing of `sessionId` is open any more: it is idle from `now` (if it still counts). */
  letGo(tunnelId: string, sessionId: string, now?: Date): Promise<void>

  /** The session ended (DELETE, or the upstream no longer knows it); its place is free. */
  end(tunnelId: string, sessionId: string): Promise<void>

  /** Live sessions and reservations of `tunnelId` at `now`. */
  count(tunnelId: string, now?: Date): Promise<number>

  /** Stop; later calls reject. Connections passed in stay open. */
  close(): Promise<void>
}
