/**
 * Resource subscriptions of agent sessions over the one upstream session per server (each
 * server of the aggregator, or the one stdio server). The first
 * agent to subscribe to a URI subscribes the upstream; later ones only join; the upstream is
 * unsubscribed when the last one leaves (unsubscribes or ends its session). Updates go to the
 * sessions subscribed to the URI, and subscriptions are renewed when an upstream initializes again.
 */

interface Subscription {
  readonly upstream: string
  readonly sessions: Set<string>
}

/** Who is subscribed to what. */
export class ResourceSubscriptions {
  readonly #byUri = new Map<string, Subscription>()

  /** The upstream serving a subscribed `uri`, if anyone is subscribed. */
  upstreamOf(uri: string): string | undefined {
    return this.#byUri.get(uri)?.upstream
  }

  /** Record that `sessionId` subscribed to `uri` at `upstream`. */
  add(uri: string, upstream: string, sessionId: string): void {
    let subscription = this.#byUri.get(uri)
    if (!subscription) this.#byUri.set(uri, (subscription = { upstream, sessions: new Set() }))
    subscription.sessions.add(sessionId)
  }

  /**
   * Record that `sessionId` unsubscribed. Returns the upstream to unsubscribe when nobody is left,
   * null while other sessions remain, undefined when the session was not subscribed.
   */
  remove(uri: string, sessionId: string): string | null | undefined {
    const subscription = this.#byUri.get(uri)
    if (!subscription?.sessions.delete(sessionId)) return undefined
    if (subscription.sessions.size > 0) return null
    this.#byUri.delete(uri)
    return subscription.upstream
  }

  /** Drop a session; returns the URIs (and upstreams) nobody is subscribed to any more. */
  dropSession(sessionId: string): { uri: string; upstream: string }[] {
    const emptied: { uri: string; upstream: string }[] = []
    for (const uri of [...this.#byUri.keys()]) {
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
}
