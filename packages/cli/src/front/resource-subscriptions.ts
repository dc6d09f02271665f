/**
 * Resource subscriptions of agent sessions over the one upstream session per server (each
 * server of the aggregator, or the one stdio server). The first
 * agent to subscribe to a URI subscribes the upstream; later ones only join; the upstream is
 * unsubscribed when the last one leaves (unsubscribes or ends its session). Updates go to the
 * sessions subscribed to the URI, and subscriptions are renewed when an upstream initializes again.
 * What one session may hold is bounded (`refusal`).
 */

/** URIs one agent session may be subscribed to at once. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 1_000
/** Characters of subscribed URIs one agent session may hold at once. */
export const MAX_SUBSCRIBED_URI_CHARS_PER_SESSION = 1024 * 1024

interface Subscription {
  readonly upstream: string
  readonly sessions: Set<string>
}

/** What one session is subscribed to, or subscribing to. */
interface SessionSubscriptions {
  readonly uris: Set<string>
  /** URIs of its subscribes on their way (`subscribing`), with how many of each. */
  readonly pending: Map<string, number>
  /** URIs held (subscribed or on their way), and their characters: what the bound counts. */
  count: number
  chars: number
}

/** Who is subscribed to what. */
export class ResourceSubscriptions {
  readonly #byUri = new Map<string, Subscription>()
  readonly #bySession = new Map<string, SessionSubscriptions>()
  /** Subscribes on their way to the upstream, by URI (see `subscribing`). */
  readonly #pending = new Map<string, number>()
  /** The upstream of each URI whose last subscriber left while a subscribe was on its way. */
  readonly #heldBack = new Map<string, string>()

  /**
   * A subscribe to `uri` is on its way to the upstream, recorded only once answered (an
   * aggregate learns which upstream serves a URI from the answer). Meanwhile the last recorded
   * subscriber's leaving does not unsubscribe the upstream, which could apply the two in either
   * order and drop the subscription of the agent that was just told it has one. Call the
   * returned function once when the subscribe is answered (after `add`) or failed: it returns
   * the upstream to unsubscribe now, when a leaving was held back and nobody is subscribed.
   * Meanwhile the URI counts against `sessionId`'s bound: checked before each subscribe is
   * answered, subscribes sent at once (a batch, parallel POSTs) all passed it, and one session
   * held thousands (found by a hostile review).
   */
  subscribing(uri: string, sessionId: string): () => string | undefined {
    this.#pending.set(uri, (this.#pending.get(uri) ?? 0) + 1)
    const mine = this.#mine(sessionId)
    if (!mine.uris.has(uri) && !mine.pending.has(uri)) hold(mine, uri)
    mine.pending.set(uri, (mine.pending.get(uri) ?? 0) + 1)
    let settled = false
    return () => {
      if (settled) return undefined
      settled = true
      this.#arrived(uri, sessionId)
      const left = (this.#pending.get(uri) ?? 1) - 1
      if (left > 0) {
        this.#pending.set(uri, left)
        return undefined
      }
      this.#pending.delete(uri)
      const held = this.#heldBack.get(uri)
      this.#heldBack.delete(uri)
      return this.#byUri.has(uri) ? undefined : held
    }
  }

  /** The upstream serving a subscribed `uri`, if anyone is subscribed. */
  upstreamOf(uri: string): string | undefined {
    return this.#byUri.get(uri)?.upstream
  }

  /**
   * Why `sessionId` may not subscribe to `uri` now, or null: a remote agent's subscriptions are
   * held for as long as its session lasts, so each session's are bounded (count and characters).
   */
  refusal(uri: string, sessionId: string): string | null {
    const mine = this.#bySession.get(sessionId)
    if (mine?.uris.has(uri) || mine?.pending.has(uri)) return null
    const count = mine?.count ?? 0
    if (count >= MAX_SUBSCRIPTIONS_PER_SESSION) {
      return `this session is subscribed to ${count} resources, the most it may be; unsubscribe from one first`
    }
    if ((mine?.chars ?? 0) + uri.length > MAX_SUBSCRIBED_URI_CHARS_PER_SESSION) {
      return `this session's subscribed URIs would pass ${MAX_SUBSCRIBED_URI_CHARS_PER_SESSION} characters; unsubscribe from one first`
    }
    return null
  }

  /** Record that `sessionId` subscribed to `uri` at `upstream` (`refusal` said yes). */
  add(uri: string, upstream: string, sessionId: string): void {
    let subscription = this.#byUri.get(uri)
    if (!subscription) this.#byUri.set(uri, (subscription = { upstream, sessions: new Set() }))
    subscription.sessions.add(sessionId)
    const mine = this.#mine(sessionId)
    if (mine.uris.has(uri)) return
    if (!mine.pending.has(uri)) hold(mine, uri)
    mine.uris.add(uri)
  }

  /**
   * Record that `sessionId` unsubscribed. Returns the upstream to unsubscribe when nobody is left,
   * null while other sessions remain or a subscribe is on its way (`subscribing`), undefined when
   * the session was not subscribed.
   */
  remove(uri: string, sessionId: string): string | null | undefined {
    const subscription = this.#byUri.get(uri)
    if (!subscription?.sessions.delete(sessionId)) return undefined
    const mine = this.#bySession.get(sessionId)
    if (mine?.uris.delete(uri) && !mine.pending.has(uri)) this.#release(sessionId, mine, uri)
    if (subscription.sessions.size > 0) return null
    this.#byUri.delete(uri)
    if (!this.#pending.has(uri)) return subscription.upstream
    this.#heldBack.set(uri, subscription.upstream)
    return null
  }

  /** Drop a session; returns the URIs (and upstreams) nobody is subscribed to any more. */
  dropSession(sessionId: string): { uri: string; upstream: string }[] {
    const emptied: { uri: string; upstream: string }[] = []
    for (const uri of [...(this.#bySession.get(sessionId)?.uris ?? [])]) {
      const upstream = this.remove(uri, sessionId)
      if (typeof upstream === 'string') emptied.push({ uri, upstream })
    }
    return emptied
  }

  /** Sessions subscribed to `uri`. */
  subscribers(uri: string): readonly string[] {
    return [...(this.#byUri.get(uri)?.sessions ?? [])]
  }

  /** URIs subscribed at `upstream` (to renew after it initializes again). */
  urisAt(upstream: string): string[] {
    return [...this.#byUri].filter(([, s]) => s.upstream === upstream).map(([uri]) => uri)
  }

  /** What `sessionId` holds, made empty when it holds nothing yet. */
  #mine(sessionId: string): SessionSubscriptions {
    let mine = this.#bySession.get(sessionId)
    if (!mine) {
      mine = { uris: new Set(), pending: new Map(), count: 0, chars: 0 }
      this.#bySession.set(sessionId, mine)
    }
    return mine
  }

  /** One of `sessionId`'s subscribes to `uri` was answered or failed (after `add`). */
  #arrived(uri: string, sessionId: string): void {
    const mine = this.#bySession.get(sessionId)
    const left = (mine?.pending.get(uri) ?? 0) - 1
    if (mine === undefined || left < 0) return
    if (left > 0) return void mine.pending.set(uri, left)
    mine.pending.delete(uri)
    if (!mine.uris.has(uri)) this.#release(sessionId, mine, uri)
  }

  /** `sessionId` holds `uri` no more; a session holding nothing is forgotten. */
  #release(sessionId: string, mine: SessionSubscriptions, uri: string): void {
    mine.count -= 1
    mine.chars -= uri.length
    if (mine.count === 0) this.#bySession.delete(sessionId)
  }
}

/** `mine` holds `uri` now. */
function hold(mine: SessionSubscriptions, uri: string): void {
  mine.count += 1
  mine.chars += uri.length
}
