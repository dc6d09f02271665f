/**
 * The per-tunnel session cap as the edge applies it (docs/decisions.md#quotas-and-sessions): an
 * `initialize` without `Mcp-Session-Id` reserves a place or is refused with `session_limit`; the
 * upstream's answer turns the place into a session (it carries `Mcp-Session-Id`) or gives it back;
 * a request carrying the id holds the session in use from before it is forwarded until the
 * exchange ends (a GET stream for as long as it is open: the hold is a lease this node renews),
 * a session that lost its place while idle taking one back or being refused (`hold`); DELETE or a
 * 404 from the upstream ends it. When the cap is full, a new session takes the place of the
 * session idle the longest (docs/decisions.md#sessions-in-use). A sessionless (2026-07-28)
 * request holds a place of its own while in flight (`holdRequest`). The reservation and the
 * first hold of a session on this node are on the request's path; every other change runs in
 * the background and a failure is logged, never shown to the agent.
 */
import { createHash, randomUUID } from 'node:crypto'
import { FOREIGN_SESSION_HEADER, type HeaderPairs, type Logger } from '@burrow/protocol'
import { PLANS } from '../plans.js'
import { MAX_SESSION_ID_LENGTH, MCP_SESSION_ID } from './check-session-input.js'
import type { MeteredTunnel } from './quota-gate.js'
import { DEFAULT_LEASE_MS, type SessionTracker } from './session-tracker.js'

/** The outcome of `EdgeSessions.reserve`. */
export type SessionPlace =
  | { readonly ok: true; readonly reservation: string }
  | { readonly ok: false; readonly reason: string }

/** The outcome of `EdgeSessions.hold`. */
export type SessionHold = { readonly ok: true } | { readonly ok: false; readonly reason: string }

/** The outcome of `EdgeSessions.holdRequest`. */
export type RequestPlace =
  | { readonly ok: true; readonly release: () => void }
  | { readonly ok: false; readonly reason: string }

/** The envelope's `error.message` for `session_limit`. */
export const SESSION_LIMIT_MESSAGE = 'session limit reached for this tunnel'

/**
 * The id `sessionId` is counted under: itself, or a digest of one longer than the tracker keeps
 * (before, such ids were not counted at all, and a local server that issued 291-character ids
 * had ten sessions in use on Free; found by a hostile review); null for one MCP does not allow.
 */
function countedId(sessionId: string): string | null {
  if (!MCP_SESSION_ID.test(sessionId)) return null
  if (sessionId.length <= MAX_SESSION_ID_LENGTH) return sessionId
  return `#sha256:${createHash('sha256').update(sessionId).digest('hex')}`
}

/** A session this node holds in use: how many of its exchanges are open here. */
interface Held {
  readonly tunnel: MeteredTunnel
  readonly sessionId: string
  open: number
  /**
   * Whether the tracker counted it when this node first held it (false: refused); true once
   * its `initialize` opened it held.
   */
  counted: Promise<boolean>
  /** `counted` came back true: from then on the hold is renewed. */
  confirmed: boolean
}

/** The edge's use of a `SessionTracker`. */
export class EdgeSessions {
  readonly #tracker: SessionTracker
  readonly #log: Logger
  readonly #renewMs: number
  /** Sessions with an exchange open on this node, by tunnel id and session id. */
  readonly #held = new Map<string, Held>()
  #renewal: NodeJS.Timeout | null = null
  #closed = false

  /** `leaseMs` must match the tracker's lease: holds are renewed three times per lease. */
  constructor(tracker: SessionTracker, log: Logger, leaseMs = DEFAULT_LEASE_MS) {
    this.#tracker = tracker
    this.#log = log
    this.#renewMs = Math.max(1, Math.floor(leaseMs / 3))
  }

  /** Hold a place for a new session of `tunnel`, or say why not. Rejects when the tracker fails. */
  async reserve(tunnel: MeteredTunnel): Promise<SessionPlace> {
    const plan = PLANS[tunnel.plan]
    const cap = plan.sessionsPerTunnel
    const place = await this.#tracker.reserve(tunnel.id, cap)
    if (place.ok) {
      if (place.displaced !== undefined) {
        this.#log.debug(`sessions: ${tunnel.id}: a new session took the place of an idle one`)
      }
      return { ok: true, reservation: place.reservation }
    }
    return {
      ok: false,
      reason:
        `this tunnel already has ${place.open} open MCP sessions, the most the ${plan.name} plan ` +
        `allows (${cap}), and each is in use (a request being answered or a GET stream open); ` +
        `existing sessions keep working. Close one (its stream, or HTTP DELETE with its ` +
        `Mcp-Session-Id), try again once one is idle, or upgrade the plan`,
    }
  }

  /**
   * The upstream answered the `initialize` holding `reservation` with `status` and `headers`:
   * a session opens when they carry a session id, else the place is given back. The session
   * opens in use, held until `done` with the id returned (its answer may still be streaming:
   * opened idle, another `initialize` took its place before the answer ended, and the agent's
   * next request was refused; found by a review); null when none opened.
   */
  settle(
    tunnel: MeteredTunnel,
    reservation: string,
    status: number,
    headers: HeaderPairs,
  ): string | null {
    const header = headers.find(([name]) => name.toLowerCase() === 'mcp-session-id')?.[1]
    const sessionId = header === undefined ? null : countedId(header)
    if (status < 200 || status >= 300 || sessionId === null) {
      this.release(tunnel, reservation)
      return null
    }
    if (this.#closed) {
      this.#background(this.#tracker.open(tunnel.id, reservation, sessionId), 'opening', tunnel)
      return null
    }
    const opened = this.#tracker.open(tunnel.id, reservation, sessionId, undefined, true)
    this.#background(opened, 'opening', tunnel)
    const key = `${tunnel.id}\n${sessionId}`
    const held = this.#held.get(key)
    if (held !== undefined) {
      // Opened held, it is counted and this node's to renew, whatever a hold of the same id
      // still unanswered (an upstream that reuses ids) says; found by a review.
      held.open++
      held.counted = Promise.resolve(true)
      held.confirmed = true
    } else {
      this.#held.set(key, {
        tunnel,
        sessionId,
        open: 1,
        counted: Promise.resolve(true),
        confirmed: true,
      })
      this.#renewal ??= setInterval(() => this.#renew(), this.#renewMs).unref()
    }
    return header ?? null
  }

  /** Give back the place of an `initialize` that was refused or failed. */
  release(tunnel: MeteredTunnel, reservation: string): void {
    this.#background(this.#tracker.release(tunnel.id, reservation), 'releasing', tunnel)
  }

  /**
   * A sessionless (MCP 2026-07-28) request of `tunnel` is about to be forwarded: it takes a place
   * (as a new session would, the place of an idle session when the cap is full) and holds it in
   * use while it is in flight, a `subscriptions/listen` stream for as long as it stays open; or
   * it is refused when every place is in use. `release` gives the place back; call it once the
   * exchange is over. Rejects when the tracker fails.
   */
  async holdRequest(tunnel: MeteredTunnel): Promise<RequestPlace> {
    const plan = PLANS[tunnel.plan]
    const cap = plan.sessionsPerTunnel
    // The place is an internal session, taken already held in one step of the tracker (a free
    // place, or an idle session's) and renewed while the request lasts, so a long stream keeps
    // it and an idle one never takes it. It used to be reserved, then opened and held in the
    // background: idle in between, so with Redis another request took it meanwhile and the hold
    // found the tunnel full, and twelve such requests were in flight at once on Free (found by a
    // hostile review).
    const id = `~inflight-${randomUUID()}`
    const key = `${tunnel.id}\n${id}`
    let counted: boolean
    try {
      counted = await this.#tracker.hold(tunnel.id, id, cap)
    } catch (error) {
      // A hold that timed out may still land (a stalled Redis runs it once it resumes).
      this.#background(this.#tracker.end(tunnel.id, id), 'releasing', tunnel)
      throw error
    }
    if (!counted) {
      return {
        ok: false,
        reason:
          `this tunnel already has ${cap} MCP sessions, requests and subscription streams in ` +
          `flight, the most the ${plan.name} plan allows (${cap}); retry when one ends, or upgrade the plan`,
      }
    }
    this.#held.set(key, {
      tunnel,
      sessionId: id,
      open: 1,
      counted: Promise.resolve(true),
      confirmed: true,
    })
    this.#renewal ??= setInterval(() => this.#renew(), this.#renewMs).unref()
    let released = false
    return {
      ok: true,
      release: () => {
        if (released) return
        released = true
        this.#drop(key)
        this.#background(this.#tracker.end(tunnel.id, id), 'releasing', tunnel)
      },
    }
  }

  /**
   * A request of the session `header` names (its `Mcp-Session-Id`; not an `initialize`, not a
   * DELETE) is about to be forwarded: the session is held in use until `done`, which the caller
   * must then call exactly once. A session that lost its place while idle (another took it), or that the tracker does not know (after a
   * restart; an id a server that ignores sessions accepts), takes a free place or an idle
   * session's; when every place is in use it is refused, and nothing is held. Before, it was
   * forwarded uncounted, so an agent that opened ten sessions one after another, each taking the
   * place of the one before while it was idle, then used all ten at once on a plan of three.
   * A session already held on this node (its GET stream is open) asks the tracker nothing.
   * Rejects when the tracker fails.
   */
  async hold(tunnel: MeteredTunnel, header: string): Promise<SessionHold> {
    const sessionId = countedId(header)
    // Not an id MCP allows (so never opened as a session): nothing to count.
    if (sessionId === null || this.#closed) return { ok: true }
    const key = `${tunnel.id}\n${sessionId}`
    let held = this.#held.get(key)
    if (held === undefined) {
      const counted = this.#tracker.hold(tunnel.id, sessionId, capOf(tunnel))
      held = { tunnel, sessionId, open: 0, counted, confirmed: false }
      this.#held.set(key, held)
      this.#renewal ??= setInterval(() => this.#renew(), this.#renewMs).unref()
    }
    held.open++
    let counted: boolean
    try {
      counted = await held.counted
    } catch (error) {
      this.#forget(key, held)
      // A hold that timed out may still land (a stalled Redis runs it once it resumes): let go
      // after it, or the session would stay in use for a lease that no exchange ends.
      if (!this.#held.has(key)) {
        this.#background(this.#tracker.letGo(tunnel.id, sessionId), 'idling', tunnel)
      }
      throw error
    }
    if (counted) {
      held.confirmed = true
      return { ok: true }
    }
    this.#forget(key, held)
    const plan = PLANS[tunnel.plan]
    const cap = plan.sessionsPerTunnel
    return {
      ok: false,
      reason:
        `this session was idle and another took its place; the tunnel's ${cap} places, the most ` +
        `the ${plan.name} plan allows, are all in use now (a request being answered or a GET ` +
        `stream open). Try again once one is idle, close one, or upgrade the plan`,
    }
  }

  /** A DELETE arrived naming session `header`: the session stays for another idle timeout. */
  touch(tunnel: MeteredTunnel, header: string): void {
    const sessionId = countedId(header)
    if (sessionId === null) return
    this.#background(this.#tracker.touch(tunnel.id, sessionId), 'refreshing', tunnel)
  }

  /**
   * A request with `method` naming session `header` was answered with `status` and `headers`: the
   * session ends after a successful DELETE, and when the upstream no longer knows it (404, unless
   * `burrow up` says the session goes on as another agent's).
   */
  answered(
    tunnel: MeteredTunnel,
    method: string,
    header: string,
    status: number,
    headers: HeaderPairs = [],
  ): void {
    const sessionId = countedId(header)
    if (sessionId === null) return
    const ok = status >= 200 && status < 300
    if (status === 404 && foreign(headers)) return
    if ((method === 'DELETE' && ok) || status === 404) {
      this.#background(this.#tracker.end(tunnel.id, sessionId), 'ending', tunnel)
    }
  }

  /** An exchange that `hold` admitted is over: at the last one, the session is idle. */
  done(tunnel: MeteredTunnel, header: string): void {
    const sessionId = countedId(header)
    if (sessionId === null) return
    const key = `${tunnel.id}\n${sessionId}`
    const held = this.#held.get(key)
    if (held === undefined || --held.open > 0) return
    this.#drop(key)
    this.#background(this.#tracker.letGo(tunnel.id, sessionId), 'idling', tunnel)
  }

  /** A hold that was refused or failed: its exchange is not counted as open. */
  #forget(key: string, held: Held): void {
    if (--held.open === 0 && this.#held.get(key) === held) this.#drop(key)
  }

  #drop(key: string): void {
    this.#held.delete(key)
    if (this.#held.size === 0 && this.#renewal !== null) {
      clearInterval(this.#renewal)
      this.#renewal = null
    }
  }

  /**
   * Stop renewing and changing places (at shutdown, before the tracker closes). The sessions
   * this node still holds are let go first, so that they are idle at once on every node rather
   * than in use until their leases end (a minute after a drain that cut their streams).
   */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    if (this.#renewal !== null) clearInterval(this.#renewal)
    this.#renewal = null
    const held = [...this.#held.values()]
    this.#held.clear()
    // A first hold still on its way is let go once it lands (found by a review).
    await Promise.allSettled(
      held.map(async ({ tunnel, sessionId, counted }) => {
        if (await counted) await this.#tracker.letGo(tunnel.id, sessionId)
      }),
    )
  }

  /**
   * Renew the lease of every session held on this node. One whose place was lost meanwhile (Redis
   * restarted empty) takes one back if it can; if every place is in use by then, it goes on
   * uncounted until its exchanges end (docs/security.md, "Known gaps").
   */
  #renew(): void {
    for (const { tunnel, sessionId, confirmed } of this.#held.values()) {
      // A first hold still unanswered is not renewed: if it is refused, a renewal that got a
      // place meanwhile would hold the session for a lease that no exchange ends.
      if (!confirmed) continue
      const renewed = this.#tracker.hold(tunnel.id, sessionId, capOf(tunnel), undefined, true)
      this.#background(renewed, 'renewing', tunnel)
    }
  }

  #background(work: Promise<unknown>, what: string, tunnel: MeteredTunnel): void {
    if (this.#closed) {
      // Shutting down: the tracker is closing, so its refusal is expected and not worth a line.
      work.catch(() => {})
      return
    }
    work.catch((error: Error) =>
      this.#log.warn(`sessions: ${what} a session of ${tunnel.id} failed: ${error.message}`),
    )
  }
}

/** The session cap of `tunnel`'s plan. */
function capOf(tunnel: MeteredTunnel): number {
  return PLANS[tunnel.plan].sessionsPerTunnel
}

/** Whether `headers` say the session refused goes on as another agent's (`burrow up`). */
function foreign(headers: HeaderPairs): boolean {
  return headers.some(([name]) => name.toLowerCase() === FOREIGN_SESSION_HEADER)
}
