/**
 * Several burrowd nodes serving one set of tunnels: each node records in the Redis directory
 * the tunnels whose clients it holds (refreshed while held; every claim takes a new epoch, so the
 * newest connection wins across nodes and a node that lost a tunnel is fenced), and a public
 * request that arrives for a tunnel held elsewhere is forwarded over a persistent authenticated
 * link to the holder (`NodeLinks`), which pipes it into the tunnel (`pipeStreams`). No payload
 * passes through Redis; the edge applies policies and quotas where the request arrives (their
 * counters are in Redis, exact across nodes), and the holder only relays.
 */
import {
  RESET_CODE,
  type HeadReserve,
  type Logger,
  type MuxStream,
  type RequestHead,
} from '@burrow/protocol'
import type { TunnelRegistry } from '../broker/tunnel-registry.js'
import type { ClusterEvents } from './cluster-events.js'
import type { LinkChannels } from './node-channels.js'
import { NodeLinks } from './node-links.js'
import { pipeStreams } from './stream-pipe.js'
import type { TunnelDirectory } from './tunnel-directory.js'
import { localRoute, type TunnelRoute } from './tunnel-route.js'
import { LinkFailureLog } from './link-failure-log.js'

/** The header naming the tunnel (and epoch) of a forwarded request; never reaches the client. */
export const FORWARDED_TUNNEL_HEADER = 'x-burrow-node-tunnel'

/**
 * The room an agent's request head must leave for that header (a tunnel id and an epoch), so
 * that a head the edge accepts crosses to the holding node too.
 */
export const FORWARDING_ROOM: HeadReserve = { pairs: 1, bytes: 128 }

/** Directory entries refreshed at once (a loop refreshes every held tunnel's). */
const REFRESH_BATCH = 200

/** Options of `new ClusterRouter`. */
export interface ClusterRouterOptions {
  readonly nodeId: string
  /** This node's internal URL, which peers connect to (`BURROW_NODE_URL`). */
  readonly nodeUrl: string
  /** The cluster secret every node reads from the shared database. */
  readonly secret: string
  readonly directory: TunnelDirectory
  readonly registry: TunnelRegistry
  readonly events: ClusterEvents
  readonly log: Logger
  /** How long a forwarded request waits for a reconnecting client on the holder. */
  readonly queueWaitMs: number
}

/** Routes requests to the node holding each tunnel, and serves peers' forwarded requests. */
export class ClusterRouter {
  readonly #opts: ClusterRouterOptions
  readonly links: NodeLinks
  /** The epoch of each tunnel this node holds. */
  readonly #held = new Map<string, number>()
  /** Tunnels whose clients are connected here but whose claim Redis refused. */
  readonly #unclaimed = new Set<string>()
  /** Tunnels whose client this node has (from `held` until `gone`, or another node took it). */
  readonly #present = new Set<string>()
  /** Claims made here and not answered yet, per tunnel. */
  readonly #claiming = new Map<string, number>()
  /** The newest epoch other nodes announced for a tunnel while a claim made here was on its way. */
  readonly #takenMeanwhile = new Map<string, number>()
  readonly #timer: NodeJS.Timeout
  /** Requests waiting for a moving tunnel to be taken by a node. */
  readonly #waiting = new Map<string, Set<() => void>>()
  /** Set when this node stops: every tunnel it holds is moving to another node. */
  #draining = false
  /** Requests peers forwarded here that are being served (draining waits for them). */
  #serving = 0
  /** Set while a refresh loop runs. */
  #refreshing = false
  /** Links that could not be opened, logged at most once a minute per peer. */
  readonly #linkFailures: LinkFailureLog

  constructor(opts: ClusterRouterOptions) {
    this.#opts = opts
    this.#linkFailures = new LinkFailureLog(opts.log)
    this.links = new NodeLinks({
      nodeId: opts.nodeId,
      secret: opts.secret,
      log: opts.log,
      onStream: (stream, head, body, fin) => void this.#serveForwarded(stream, head, body, fin),
    })
    opts.events.subscribe((event) => {
      if (event.type !== 'taken') return
      for (const wake of [...(this.#waiting.get(event.tunnelId) ?? [])]) wake()
      // Another node took a tunnel this node holds: the newest connection wins.
      if (event.node === opts.nodeId) return
      // Unless a claim made here is on its way: its client is newer than the one compared
      // here, and may be newer than that node's too. Its answer decides (`#settleClaims`).
      if (this.#claiming.has(event.tunnelId)) {
        const seen = this.#takenMeanwhile.get(event.tunnelId) ?? 0
        this.#takenMeanwhile.set(event.tunnelId, Math.max(seen, event.epoch))
        return
      }
      this.#takenElsewhere(event.tunnelId, event.epoch)
    })
    this.#timer = setInterval(
      () => {
        // One loop at a time: while Redis does not answer, each refresh waits up to the command
        // timeout, and a loop begun at every turn kept its own copy of the held tunnels, so that
        // an outage grew the heap by a copy every turn for as long as it lasted.
        if (this.#refreshing) return
        this.#refreshing = true
        void this.#refresh().finally(() => (this.#refreshing = false))
      },
      Math.max(1000, opts.directory.ttlMs / 3),
    )
    this.#timer.unref()
  }

  /**
   * A client for `tunnelId` connected here: claim it in the directory. A claim Redis refused (it
   * is down) is made again at each refresh until it succeeds or the client goes.
   */
  held(tunnelId: string): void {
    this.#unclaimed.delete(tunnelId)
    this.#present.add(tunnelId)
    this.#claiming.set(tunnelId, (this.#claiming.get(tunnelId) ?? 0) + 1)
    this.#opts.directory
      .claim(tunnelId, this.#opts.nodeId, this.#opts.nodeUrl)
      .then((epoch) => {
        if (!this.#present.has(tunnelId)) {
          // Its client went while the claim was on its way: kept, it was refreshed for good.
          this.#opts.directory
            .release(tunnelId, epoch)
            .catch((err: Error) =>
              this.#opts.log.warn(`cluster: releasing ${tunnelId}: ${err.message}`),
            )
          return
        }
        // A newer claim made here meanwhile wins over this one.
        if ((this.#held.get(tunnelId) ?? 0) < epoch) this.#held.set(tunnelId, epoch)
        this.#announce(tunnelId, epoch)
      })
      .catch((err: Error) => {
        this.#opts.log.warn(`cluster: claiming ${tunnelId}: ${err.message} (tried again shortly)`)
        if (this.#present.has(tunnelId) && !this.#held.has(tunnelId)) this.#unclaimed.add(tunnelId)
      })
      .finally(() => {
        const left = (this.#claiming.get(tunnelId) ?? 1) - 1
        if (left > 0) return void this.#claiming.set(tunnelId, left)
        this.#claiming.delete(tunnelId)
        // Another node took the tunnel while the claims were on their way: theirs decide now.
        // Left to a refresh, an older claim's node served its client for up to a third of the
        // entry's lifetime beside the newer node (found by a review).
        const seen = this.#takenMeanwhile.get(tunnelId)
        this.#takenMeanwhile.delete(tunnelId)
        if (seen !== undefined) this.#takenElsewhere(tunnelId, seen)
      })
  }

  /** Another node announced it took `tunnelId` under `epoch`: the newest connection wins. */
  #takenElsewhere(tunnelId: string, epoch: number): void {
    const held = this.#held.get(tunnelId)
    if (held !== undefined && held < epoch) this.#lost(tunnelId)
    // A claim still to be made again here is older than this one: it must not take it back.
    else if (this.#unclaimed.delete(tunnelId)) this.#lost(tunnelId)
  }

  /** Tell every node that this one holds `tunnelId` under `epoch`. */
  #announce(tunnelId: string, epoch: number): void {
    void this.#opts.events.publish({ type: 'taken', tunnelId, node: this.#opts.nodeId, epoch })
  }

  /** This node no longer holds `tunnelId` (its grace period ended, or it was cut off). */
  gone(tunnelId: string): void {
    this.#unclaimed.delete(tunnelId)
    this.#present.delete(tunnelId)
    const epoch = this.#held.get(tunnelId)
    if (epoch === undefined) return
    this.#held.delete(tunnelId)
    this.#opts.directory
      .release(tunnelId, epoch)
      .catch((err: Error) => this.#opts.log.warn(`cluster: releasing ${tunnelId}: ${err.message}`))
  }

  /**
   * Where to send a request for `tunnelId`: this node's client when it is connected here, the
   * holding node when another one holds it, else this node's client once it reconnects within
   * `waitMs` (its grace period), or null (offline).
   */
  async route(tunnelId: string, waitMs: number): Promise<TunnelRoute | null> {
    const { registry } = this.#opts
    if (registry.isOnline(tunnelId)) return localRoute(registry, tunnelId, 0)
    const remote = await this.#remote(tunnelId)
    if (remote) return remote
    if (remote === null && waitMs > 0) {
      // The holder cannot be reached (it is going away): its client is moving; wait for the
      // node that takes it, as a reconnecting client is waited for on one node.
      return this.#whenTaken(tunnelId, waitMs)
    }
    if (this.#draining && waitMs > 0 && this.#held.has(tunnelId)) {
      // This node told the tunnel's client to go: it reconnects to another node, not here. Wait
      // for the node that takes it (a request reaching a draining node through a connection
      // the load balancer kept open is served wherever the tunnel goes).
      return this.#whenTaken(tunnelId, waitMs)
    }
    const local = await localRoute(registry, tunnelId, waitMs)
    // While this node waited, the client may have reconnected to another node.
    return local ?? (waitMs > 0 ? ((await this.#remote(tunnelId)) ?? null) : null)
  }

  /** This node is stopping: its tunnels move to other nodes (see `route`). */
  drain(): void {
    this.#draining = true
  }

  /** Requests forwarded here by peers and not answered yet. */
  get servingCount(): number {
    return this.#serving
  }

  /**
   * The route to `tunnelId` once a node (this one too) takes it, or null after `waitMs`. The
   * directory is read again once the waiter is in place, so a claim that lands just before the
   * wait begins is not missed.
   */
  async #whenTaken(tunnelId: string, waitMs: number): Promise<TunnelRoute | null> {
    const { registry } = this.#opts
    const where = async () =>
      registry.isOnline(tunnelId)
        ? localRoute(registry, tunnelId, 0)
        : ((await this.#remote(tunnelId)) ?? null)
    const taken = this.#taken(tunnelId, waitMs)
    const already = await where().catch((err: Error) => {
      taken.stop()
      throw err
    })
    if (already !== null) {
      taken.stop()
      return already
    }
    await taken.done
    return where()
  }

  /** `done` resolves when a node (this one too) takes `tunnelId`, after `waitMs`, or on `stop`. */
  #taken(tunnelId: string, waitMs: number): { done: Promise<void>; stop: () => void } {
    let stop: () => void = () => {}
    const done = new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        const left = this.#waiting.get(tunnelId)
        left?.delete(wake)
        if (left?.size === 0) this.#waiting.delete(tunnelId)
        resolve()
      }
      const timer = setTimeout(wake, waitMs)
      let set = this.#waiting.get(tunnelId)
      if (!set) this.#waiting.set(tunnelId, (set = new Set()))
      set.add(wake)
      stop = wake
    })
    return { done, stop }
  }

  /**
   * The route to the node holding `tunnelId` when another node does; undefined otherwise. Rejects
   * when the directory cannot be read (Redis unreachable): the agent is told so, and not that the
   * tunnel is offline.
   */
  async #remote(tunnelId: string): Promise<TunnelRoute | null | undefined> {
    const entry = await this.#opts.directory.lookup(tunnelId)
    if (entry === null || entry.node === this.#opts.nodeId) return undefined
    let link: LinkChannels
    try {
      link = await this.links.link(entry.url, entry.node)
    } catch (err) {
      this.#linkFailures.failed(entry.url, err as Error)
      return null
    }
    const tag = `${tunnelId}.${entry.epoch}`
    return {
      via: entry.node,
      // The agent's headers come first: one of its own by this name would name another tunnel
      // to the holder, so only this node's goes.
      open: (head, body, fin) =>
        link.open(
          tunnelId,
          {
            ...head,
            headers: [
              ...head.headers.filter(([k]) => k.toLowerCase() !== FORWARDED_TUNNEL_HEADER),
              [FORWARDED_TUNNEL_HEADER, tag],
            ],
          },
          body,
          fin,
        ),
    }
  }

  /**
   * A link to a holder could not be opened: logged at once, then at most once a minute with the
   * count. Every request for the holder's tunnels meets the failure while it lasts (it is down
   * until its entries expire, or refuses the link): a line each was one per stranger's request.
   */
  /** Tunnels this node holds now (draining waits until other nodes took them). */
  get heldCount(): number {
    return this.#held.size
  }

  /** Stop refreshing and close the links; held tunnels are released. */
  close(): void {
    clearInterval(this.#timer)
    for (const tunnelId of [...this.#held.keys()]) this.gone(tunnelId)
    // A claim answered after this is given back, not held: nothing would refresh or release it,
    // and peers would forward to this node until the entry expired (found by a review).
    this.#present.clear()
    this.#unclaimed.clear()
    this.links.close()
  }

  /** A peer forwarded a request: relay it into the tunnel this node holds, or refuse it. */
  async #serveForwarded(
    inbound: MuxStream,
    head: RequestHead,
    body: Uint8Array | undefined,
    fin: boolean,
  ): Promise<void> {
    const named = head.headers.filter(([k]) => k.toLowerCase() === FORWARDED_TUNNEL_HEADER)
    const [tunnelId = '', epochText = ''] = (named.length === 1 ? named[0]![1] : '').split('.')
    const epoch = Number(epochText)
    const headers = head.headers.filter(([k]) => k.toLowerCase() !== FORWARDED_TUNNEL_HEADER)
    // Exactly one: the forwarding node's. Any other count is a request that carried its own.
    if (this.#held.get(tunnelId) !== epoch) {
      inbound.reset(RESET_CODE.refused, 'this node no longer holds the tunnel')
      return
    }
    // Served here, or (the client moved on while this node waited) where the tunnel is now.
    // Counted until answered: a draining node waits for it.
    this.#serving += 1
    let piped = false
    try {
      const route = await this.route(tunnelId, this.#opts.queueWaitMs)
      if (route === null || inbound.closed) {
        inbound.reset(RESET_CODE.refused, 'the tunnel client went away')
        return
      }
      // Opening throws when the route's connection closed meanwhile: nothing was sent, so the
      // peer may send the request again.
      pipeStreams(inbound, route.open({ ...head, headers }, body, fin), () => (this.#serving -= 1))
      piped = true
    } catch (err) {
      inbound.reset(RESET_CODE.refused, `the tunnel client went away: ${(err as Error).message}`)
    } finally {
      if (!piped) this.#serving -= 1
    }
  }

  /**
   * Keep this node's claims alive; a claim another node replaced is lost here, one whose entry
   * Redis lost is written again, and one Redis refused is made again.
   */
  async #refresh(): Promise<void> {
    const { directory, nodeId, nodeUrl, registry, log } = this.#opts
    for (const tunnelId of [...this.#unclaimed]) {
      if (registry.isOnline(tunnelId)) this.held(tunnelId)
      else this.#unclaimed.delete(tunnelId)
    }
    const refresh = async (tunnelId: string, epoch: number) => {
      // Released meanwhile (its client left): refreshing would write the entry back.
      if (this.#held.get(tunnelId) !== epoch) return
      const state = await directory.refresh(tunnelId, epoch, nodeId, nodeUrl).catch(() => null)
      if (this.#held.get(tunnelId) !== epoch) return
      // A claim on its way here is newer than the epoch refreshed: it decides.
      if (state === 'lost' && !this.#claiming.has(tunnelId)) this.#lost(tunnelId)
      else if (state === 'restored') {
        log.info(`cluster: the directory had lost tunnel ${tunnelId}; written again`)
        this.#announce(tunnelId, epoch)
      }
    }
    // Many at once: one after the other, each cost a round trip to Redis and a turn of this
    // node's event loop, and a node holding thousands of tunnels took longer than an entry lives
    // to refresh them all; entries expired before their turn, and other nodes answered that
    // tunnels online here were offline (found by a hostile review).
    const held = [...this.#held]
    for (let i = 0; i < held.length; i += REFRESH_BATCH) {
      await Promise.all(held.slice(i, i + REFRESH_BATCH).map(([t, epoch]) => refresh(t, epoch)))
    }
  }

  /** Another node holds `tunnelId` now: let the client here go. */
  #lost(tunnelId: string): void {
    this.#held.delete(tunnelId)
    this.#present.delete(tunnelId)
    this.#opts.log.info(`cluster: tunnel ${tunnelId} is held by another node now`)
    this.#opts.registry.replacedElsewhere(tunnelId)
  }
}
