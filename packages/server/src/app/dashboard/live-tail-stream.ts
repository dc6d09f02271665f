/**
 * The Traffic tab's live tail as server-sent events (`event: call`, one JSON summary each;
 * `event: dropped` when the page fell behind), for as long as the page may see it. The session
 * and the tunnel were checked when the stream opened; a stream outlives requests, so they are
 * checked again every `TAIL_RECHECK_MS`, and calls go out only while the last check is recent. A
 * sign-out on this node ends its session's streams at once (`TailSessions`); a session ended
 * otherwise (a password reset, an account recovered, another node, expiry), or a tunnel deleted,
 * ends them at the next check.
 */
import type { ServerResponse } from 'node:http'
import { HttpError } from '../../http/http-error.js'
import type { CallRecord } from '../../quota/call-history.js'
import { nameParts, nameScripts } from './shown-name.js'

/** Between the live tail's keep-alive comments. */
const TAIL_KEEPALIVE_MS = 25_000

/** Between checks that the page's session and tunnel still allow the tail. */
export const TAIL_RECHECK_MS = 1_000

/** Stored bodies the live tail carries are cut at this many characters (the detail has more). */
const TAIL_BODY_CHARS = 4096

/** A call or a count of lost ones, as the governance port hands them to a watcher. */
type TailEvent = { type: 'call'; call: CallRecord } | { type: 'dropped'; count: number }

/** The open live tails of each browser session on this node, to end at sign-out. */
export class TailSessions {
  readonly #streams = new Map<string, Set<() => void>>()

  /** Note `end` under `token` until the returned call. */
  add(token: string, end: () => void): () => void {
    let set = this.#streams.get(token)
    if (!set) {
      set = new Set()
      this.#streams.set(token, set)
    }
    set.add(end)
    return () => {
      set.delete(end)
      if (set.size === 0 && this.#streams.get(token) === set) this.#streams.delete(token)
    }
  }

  /** End every live tail of the session `token` (it was signed out). */
  end(token: string): void {
    const set = this.#streams.get(token)
    this.#streams.delete(token)
    for (const end of set ?? []) end()
  }

  /** Sessions with a tail open (for tests). */
  get size(): number {
    return this.#streams.size
  }
}

/** What `serveLiveTail` needs. */
export interface LiveTailOptions {
  readonly tunnelId: string
  /** Start watching; null when the tunnel has too many watchers. */
  readonly watch: (watcher: { send(e: TailEvent): boolean }) => (() => void) | null
  /** Whether the page's session and tunnel still allow the tail (a rejection counts as no news). */
  readonly stillAllowed: () => Promise<boolean>
  readonly sessions: TailSessions
  readonly sessionToken: string
}

/** Serve a tunnel's live tail on `res` until the page goes away or may no longer see it. */
export function serveLiveTail(res: ServerResponse, opts: LiveTailOptions): void {
  let checkedAt = performance.now()
  let ended = false
  const stop = opts.watch({
    send(event) {
      if (ended || res.destroyed) return true
      // A page that has not read what was sent yet loses this call (and is told so later), and so
      // does one whose right to see it was not confirmed lately; an event written is never lost.
      if (res.writableNeedDrain || performance.now() - checkedAt > 2 * TAIL_RECHECK_MS) return false
      const data = event.type === 'dropped' ? { count: event.count } : tailSummary(event.call)
      res.write(`event: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`)
      return true
    },
  })
  if (stop === null) {
    res.setHeader('retry-after', '30')
    throw new HttpError(
      429,
      'too_many_watchers',
      `Too many pages are watching tunnel ${opts.tunnelId} live; close one and retry.`,
    )
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  })
  res.write(': live tail\n\n')
  // Ending stops everything at once, whether or not the page reads on: a page that stopped
  // reading would never close, and nothing may be written after the end.
  const end = () => {
    if (ended) return
    ended = true
    clearInterval(keepalive)
    clearInterval(recheck)
    forget()
    stop()
    res.destroy()
  }
  res.on('error', () => {}) // a page gone mid-write; 'close' follows
  const forget = opts.sessions.add(opts.sessionToken, end)
  const keepalive = setInterval(() => {
    if (!ended && !res.destroyed) res.write(': keep-alive\n\n')
  }, TAIL_KEEPALIVE_MS)
  let checking = false
  const recheck = setInterval(() => {
    if (checking) return
    checking = true
    opts
      .stillAllowed()
      .then(
        (allowed) => {
          if (allowed) checkedAt = performance.now()
          else end()
        },
        () => {}, // no news: calls wait (and are counted lost) until a check succeeds
      )
      .finally(() => (checking = false))
  }, TAIL_RECHECK_MS)
  res.once('close', end)
  // A page that went away while the route was still looking the tunnel up closed before the
  // listener above: end now, or its watcher would stay.
  if (res.destroyed || res.closed) end()
}

/** What the live tail shows of a call: its summary and its stored (redacted) bodies, cut. */
function tailSummary(r: CallRecord): Record<string, unknown> {
  return {
    id: r.id ?? null,
    at: r.at.toISOString(),
    method: r.method,
    tool: r.tool,
    method_shown: shown(r.method),
    tool_shown: r.tool ? shown(r.tool) : null,
    status: r.status,
    outcome: r.outcome ?? (r.policyCode === null ? 'ok' : 'refused'),
    policy_code: r.policyCode,
    duration_ms: Math.round(r.durationMs),
    session_id: r.sessionId ?? null,
    request: r.requestBody?.slice(0, TAIL_BODY_CHARS) ?? null,
    response: r.responseBody?.slice(0, TAIL_BODY_CHARS) ?? null,
  }
}

/**
 * A name as the page's script shows it (it cannot import `shownName`): runs of text and escapes
 * of hidden characters (`[text, hidden]`), and the scripts a name mixes (null when it does not).
 */
function shown(name: string): { parts: [string, boolean][]; mixed: string[] | null } {
  const scripts = nameScripts(name)
  return {
    parts: nameParts(name).map((p) => [p.text, p.hidden]),
    mixed: scripts.mixed ? [...scripts.scripts] : null,
  }
}
