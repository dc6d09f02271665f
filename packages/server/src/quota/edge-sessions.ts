/**
 * The per-tunnel session cap as the edge applies it (docs/decisions.md#quotas-and-sessions): an
 * `initialize` without `Mcp-Session-Id` reserves a place or is refused with `session_limit`; the
 * upstream's answer turns the place into a session (it carries `Mcp-Session-Id`) or gives it back;
 * a request carrying the id keeps the session alive; DELETE or a 404 from the upstream ends it.
 * Sessionless (2026-07-28) requests hold a place each while in flight (`holdRequest`).
 * Only the reservation is on the request's path; every other change runs in the background and a
 * failure is logged, never shown to the agent.
 */
import type { HeaderPairs, Logger } from '@burrow/protocol'
import { PLANS } from '../plans.js'
import { MAX_SESSION_ID_LENGTH } from './check-session-input.js'
import type { MeteredTunnel } from './quota-gate.js'
import type { SessionTracker } from './session-tracker.js'

/** The outcome of `EdgeSessions.reserve`. */
export type SessionPlace =
  | { readonly ok: true; readonly reservation: string }
  | { readonly ok: false; readonly reason: string }

/** The outcome of `EdgeSessions.holdRequest`. */
export type RequestPlace =
  | { readonly ok: true; readonly release: () => void }
  | { readonly ok: false; readonly reason: string }

/** The envelope's `error.message` for `session_limit`. */
export const SESSION_LIMIT_MESSAGE = 'session limit reached for this tunnel'

/** Session ids as MCP allows them: visible ASCII. */
const SESSION_ID = new RegExp(`^[\\x21-\\x7e]{1,${MAX_SESSION_ID_LENGTH}}$`)

/** The edge's use of a `SessionTracker`. */
export class EdgeSessions {
  readonly #tracker: SessionTracker
  readonly #log: Logger
  readonly #idleSecs: number

  constructor(tracker: SessionTracker, log: Logger, idleSecs: number) {
    this.#tracker = tracker
    this.#log = log
    this.#idleSecs = idleSecs
  }

  /** Hold a place for a new session of `tunnel`, or say why not. Rejects when the tracker fails. */
  async reserve(tunnel: MeteredTunnel): Promise<SessionPlace> {
    const plan = PLANS[tunnel.plan]
    const cap = plan.sessionsPerTunnel
    const place = await this.#tracker.reserve(tunnel.id, cap)
    if (place.ok) return place
    return {
      ok: false,
      reason:
        `this tunnel already has ${place.open} open MCP sessions, the most the ${plan.name} plan ` +
        `allows (${cap}); existing sessions keep working. End one (HTTP DELETE with its ` +
        `Mcp-Session-Id), let one stay idle for ${formatIdle(this.#idleSecs)}, or upgrade the plan`,
    }
  }

  /**
   * The upstream answered the `initialize` holding `reservation` with `status` and `headers`:
   * a session opens when they carry a session id, else the place is given back.
   */
  settle(tunnel: MeteredTunnel, reservation: string, status: number, headers: HeaderPairs): void {
    const sessionId = headers.find(([name]) => name.toLowerCase() === 'mcp-session-id')?.[1]
    if (status >= 200 && status < 300 && sessionId !== undefined && SESSION_ID.test(sessionId)) {
      this.#background(this.#tracker.open(tunnel.id, reservation, sessionId), 'opening', tunnel)
    } else {
      this.release(tunnel, reservation)
    }
  }

  /** Give back the place of an `initialize` that was refused or failed. */
  release(tunnel: MeteredTunnel, reservation: string): void {
    this.#background(this.#tracker.release(tunnel.id, reservation), 'releasing', tunnel)
  }

  /**
   * A sessionless (MCP 2026-07-28) request of `tunnel` is about to be forwarded: it holds a place
   * while it is in flight (a `subscriptions/listen` stream for as long as it stays open), or is
   * refused when the places are taken. `release` gives the place back; call it once the
   * exchange is over. Rejects when the tracker fails.
   */
  async holdRequest(tunnel: MeteredTunnel): Promise<RequestPlace> {
    const plan = PLANS[tunnel.plan]
    const cap = plan.sessionsPerTunnel
    const place = await this.#tracker.reserve(tunnel.id, cap)
    if (!place.ok) {
      return {
        ok: false,
        reason:
          `this tunnel already has ${place.open} MCP sessions, requests and subscription streams ` +
          `in flight, the most the ${plan.name} plan allows (${cap}); retry when one ends, or ` +
          `upgrade the plan`,
      }
    }
    // The place becomes an internal session kept alive while the request lasts, so a long
    // stream keeps it past the reservation's own expiry.
    const id = `~inflight-${place.reservation}`
    const opened = this.#tracker.open(tunnel.id, place.reservation, id)
    this.#background(opened, 'holding', tunnel)
    const everyMs = Math.max(1000, Math.min(60_000, (this.#idleSecs * 1000) / 3))
    const timer = setInterval(
      () => this.#background(this.#tracker.touch(tunnel.id, id), 'refreshing', tunnel),
      everyMs,
    )
    timer.unref()
    let released = false
    return {
      ok: true,
      release: () => {
        if (released) return
        released = true
        clearInterval(timer)
        const end = opened.catch(() => {}).then(() => this.#tracker.end(tunnel.id, id))
        this.#background(end, 'releasing', tunnel)
      },
    }
  }

  /** A request arrived carrying `sessionId`: the session stays for another idle timeout. */
  touch(tunnel: MeteredTunnel, sessionId: string): void {
    if (!SESSION_ID.test(sessionId)) return
    this.#background(this.#tracker.touch(tunnel.id, sessionId), 'refreshing', tunnel)
  }

  /**
   * A request with `method` carrying `sessionId` was answered with `status`: the session ends
   * after a successful DELETE, and when the upstream no longer knows it (404).
   */
  answered(tunnel: MeteredTunnel, method: string, sessionId: string, status: number): void {
    if (!SESSION_ID.test(sessionId)) return
    const deleted = method === 'DELETE' && status >= 200 && status < 300
    if (deleted || status === 404) {
      this.#background(this.#tracker.end(tunnel.id, sessionId), 'ending', tunnel)
    }
  }

  #background(work: Promise<void>, what: string, tunnel: MeteredTunnel): void {
    work.catch((error: Error) =>
      this.#log.warn(`sessions: ${what} a session of ${tunnel.id} failed: ${error.message}`),
    )
  }
}

/** `30 minutes`, `90 seconds`, `2 hours`. */
function formatIdle(secs: number): string {
  if (secs % 3600 === 0) return plural(secs / 3600, 'hour')
  if (secs % 60 === 0) return plural(secs / 60, 'minute')
  return plural(secs, 'second')
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`
}
