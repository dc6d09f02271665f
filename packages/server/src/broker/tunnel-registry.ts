/**
 * Which tunnels are connected, on this node. Holds each tunnel's hostname through a grace period
 * after its client disconnects, so a reconnecting client resumes its session and public requests
 * that arrive meanwhile wait (briefly) instead of failing. Enforces one live connection per tunnel.
 */
import {
  GOAWAY_CODE,
  PROTOCOL_VERSION,
  type AccessNote,
  type Corkable,
  type Hello,
  type Logger,
  type Welcome,
} from '@burrow/protocol'
import type { WebSocket } from 'ws'
import type { TunnelWithAccount } from '../store/store.js'
import type { ResumeTokens } from './resume-token.js'
import { CLOSE_REVOKED, TunnelLink, type LinkEvents, type LinkMeters } from './tunnel-link.js'

/** What the registry needs from the rest of burrowd. */
export interface TunnelRegistryOptions {
  readonly tokens: ResumeTokens
  readonly graceMs: number
  readonly heartbeatMs: number
  readonly publicUrl: (tunnel: TunnelWithAccount) => string
  readonly log: Logger
  /** Record that a tunnel was seen (connect, disconnect). Failures are logged, never thrown. */
  readonly touch: (tunnelId: string) => Promise<void>
  readonly clock?: () => number
  /** Counts frames and bytes of every link (burrowd's metrics). */
  readonly meters?: LinkMeters
  /** A client of the tunnel connected to this node (several nodes: claim it). */
  readonly onHeld?: (tunnelId: string) => void
  /** This node no longer holds the tunnel: its grace period ended or it was cut off. */
  readonly onGone?: (tunnelId: string) => void
  /** Who may call `tunnel` now, for its WELCOME (none: the field is left out). */
  readonly access?: (tunnel: TunnelWithAccount) => AccessNote | undefined
}

/**
 * Connections one tunnel may have open on a node at once: the live one, and others that have
 * not sent HELLO yet or are draining. A key holder cannot pin more of burrowd than this.
 */
export const MAX_LINKS_PER_TUNNEL = 8

/**
 * How long a connection whose client said it is draining may finish its requests before it is
 * closed (the client's own grace is 10 s by default).
 */
export const DRAINED_LINK_CLOSE_MS = 5 * 60_000

/** How long a revocation is remembered against upgrades checked before it (see `trusts`). */
const REVOCATION_MEMORY_MS = 60_000

interface Slot {
  link: TunnelLink | null
  sessionId: string | null
  disconnectedAt: number | null
  graceTimer: NodeJS.Timeout | null
  /** Requests waiting for the tunnel to come back; null while none wait (most of the time). */
  waiters: Set<(link: TunnelLink | null) => void> | null
}

/** The tunnels connected to this node. */
export class TunnelRegistry implements LinkEvents {
  private readonly opts: TunnelRegistryOptions
  private readonly slots = new Map<string, Slot>()
  private readonly links = new Set<TunnelLink>()
  /** Every open connection of each tunnel, in any state. */
  private readonly linksOf = new Map<string, Set<TunnelLink>>()
  /** The key hash each connection authenticated with, and when its check began. */
  private readonly keys = new WeakMap<TunnelLink, { hash: string; checkedFrom: number }>()
  /** When each tunnel's key was last revoked here (rotated, or the tunnel deleted). */
  private readonly revokedAt = new Map<string, number>()
  /** Set by `drainAll`: a client welcomed after it (its upgrade began before) is told to go too. */
  private drainingAfterMs: number | null = null
  private readonly clock: () => number
  private readonly startedAt: number
  /** One timer beats for every link: an idle tunnel costs no timer of its own. */
  private readonly heartbeat: NodeJS.Timeout

  constructor(opts: TunnelRegistryOptions) {
    this.opts = opts
    this.clock = opts.clock ?? Date.now
    this.startedAt = this.clock()
    this.heartbeat = setInterval(() => {
      for (const link of this.links) link.beat()
    }, opts.heartbeatMs)
    this.heartbeat.unref()
  }

  /** The registry's clock, in milliseconds. */
  now(): number {
    return this.clock()
  }

  /** Connections open now (any state). */
  get connectionCount(): number {
    return this.links.size
  }

  /**
   * Take over an upgraded WebSocket for `tunnel`. `socket` is the connection under it: given, the
   * link batches its writes per event-loop turn (see WriteBatcher).
   */
  attach(
    ws: WebSocket,
    tunnel: TunnelWithAccount,
    socket?: Corkable,
    keyCheckedFrom = this.clock(),
    keyHash?: string,
  ): TunnelLink {
    const link = new TunnelLink(ws, tunnel, this, this.opts.log, socket, this.opts.meters)
    this.links.add(link)
    if (keyHash !== undefined) this.keys.set(link, { hash: keyHash, checkedFrom: keyCheckedFrom })
    let links = this.linksOf.get(tunnel.id)
    if (links === undefined) this.linksOf.set(tunnel.id, (links = new Set()))
    links.add(link)
    const revoked = this.revokedAt.get(tunnel.id)
    if (revoked !== undefined && revoked >= keyCheckedFrom) {
      // The key was checked, and then revoked before the connection got here.
      link.close(CLOSE_REVOKED, 'the tunnel key was rotated or the tunnel deleted')
    } else if (!this.trusts(keyCheckedFrom)) {
      // Checked too long ago to know (the broker refuses such an upgrade before its 101).
      link.close(1013, 'the tunnel key was checked too long ago; connect again')
    } else if (links.size > MAX_LINKS_PER_TUNNEL) {
      this.opts.log.info(`tunnel ${tunnel.id}: too many connections at once; closing the newest`)
      link.close(1013, `at most ${MAX_LINKS_PER_TUNNEL} connections per tunnel at once`)
    }
    return link
  }

  /**
   * Whether a key check begun at `checkedFrom` may still open a connection: every revocation
   * since is remembered. One begun longer ago (reads waiting on a stalled database) may have read
   * a key whose revocation was forgotten since (slow-key-check.test.ts).
   */
  trusts(checkedFrom: number): boolean {
    return this.clock() - checkedFrom <= REVOCATION_MEMORY_MS
  }

  /** The active link of a tunnel, waiting up to `waitMs` while it is in its grace period. */
  async route(tunnelId: string, waitMs: number): Promise<TunnelLink | null> {
    const slot = this.slots.get(tunnelId)
    if (slot?.link?.state === 'active') return slot.link
    const remaining = this.graceRemaining(slot)
    if (remaining <= 0 || waitMs <= 0) return null
    const s = slot ?? this.slot(tunnelId)
    return new Promise((resolve) => {
      const done = (link: TunnelLink | null) => {
        clearTimeout(timer)
        s.waiters?.delete(done)
        if (s.waiters?.size === 0) s.waiters = null
        resolve(link)
      }
      const timer = setTimeout(() => done(null), Math.min(waitMs, remaining))
      s.waiters ??= new Set()
      s.waiters.add(done)
    })
  }

  /** The link serving `tunnelId` now, or null. */
  activeLink(tunnelId: string): TunnelLink | null {
    const link = this.slots.get(tunnelId)?.link
    return link?.state === 'active' ? link : null
  }

  /** Whether a client is connected and serving the tunnel now. */
  isOnline(tunnelId: string): boolean {
    return this.slots.get(tunnelId)?.link?.state === 'active'
  }

  /**
   * Cut a tunnel's client off at once and forget its slot, with no grace period: its key was
   * rotated or the tunnel deleted. The client's reconnect is refused with 401, which it reports
   * as "authentication failed".
   */
  disconnect(tunnelId: string, reason: string): void {
    const now = this.clock()
    for (const [id, at] of this.revokedAt) {
      if (now - at > REVOCATION_MEMORY_MS) this.revokedAt.delete(id)
    }
    this.revokedAt.set(tunnelId, now)
    const slot = this.slots.get(tunnelId)
    if (slot) this.forget(tunnelId, slot)
    // Every connection of the key goes, in any state: one waiting to say HELLO, one draining.
    const links = [...(this.linksOf.get(tunnelId) ?? [])]
    if (links.length > 0)
      this.opts.log.info(`tunnel ${tunnelId}: disconnecting its client: ${reason}`)
    for (const link of links) link.close(CLOSE_REVOKED, reason.slice(0, 120))
  }

  /**
   * Cut off the connections of `tunnelId` whose key is not `keyHash` (null: the tunnel is gone),
   * among those whose key check began before `before`, as `disconnect` does: their key was
   * rotated or their tunnel deleted, and this node missed the news. Returns how many went.
   */
  cutStaleKeys(tunnelId: string, keyHash: string | null, before: number, reason: string): number {
    const stale = [...(this.linksOf.get(tunnelId) ?? [])].filter((link) => {
      const key = this.keys.get(link)
      return key !== undefined && key.checkedFrom < before && key.hash !== keyHash
    })
    if (stale.length === 0) return 0
    const slot = this.slots.get(tunnelId)
    // A client with the current key keeps the tunnel; else it goes, with no grace period.
    if (slot && (slot.link === null || stale.includes(slot.link))) this.forget(tunnelId, slot)
    this.opts.log.info(`tunnel ${tunnelId}: disconnecting its client: ${reason}`)
    for (const link of stale) link.close(CLOSE_REVOKED, reason.slice(0, 120))
    return stale.length
  }

  /** The tunnels with connections whose key is known, with the key and when it was checked. */
  connectionKeys(): { tunnelId: string; hash: string; checkedFrom: number }[] {
    const keys = []
    for (const link of this.links) {
      const key = this.keys.get(link)
      if (key !== undefined) keys.push({ tunnelId: link.tunnel.id, ...key })
    }
    return keys
  }

  /**
   * A newer connection of the tunnel went to another node: this node's client (if any) is told
   * it was replaced and finishes its in-flight requests, as when a newer connection arrives here.
   */
  replacedElsewhere(tunnelId: string): void {
    const slot = this.slots.get(tunnelId)
    if (!slot) return
    this.slots.delete(tunnelId)
    if (slot.graceTimer) clearTimeout(slot.graceTimer)
    for (const waiter of [...(slot.waiters ?? [])]) waiter(null)
    const link = slot.link
    if (link) {
      link.goaway(GOAWAY_CODE.replaced)
      setTimeout(() => link.close(1000, 'replaced by a newer connection'), 30_000).unref()
    }
  }

  /** Drop `slot` of `tunnelId`: nothing waits for it, and this node no longer holds it. */
  private forget(tunnelId: string, slot: Slot): void {
    this.slots.delete(tunnelId)
    if (slot.graceTimer) clearTimeout(slot.graceTimer)
    for (const waiter of [...(slot.waiters ?? [])]) waiter(null)
    this.opts.onGone?.(tunnelId)
  }

  /** Tell every client this node is going away, so they reconnect (elsewhere, or after restart). */
  drainAll(reconnectAfterMs: number): void {
    this.drainingAfterMs = reconnectAfterMs
    for (const link of this.links) link.goaway(GOAWAY_CODE.drain, reconnectAfterMs)
  }

  /** Close every connection. */
  closeAll(): void {
    clearInterval(this.heartbeat)
    for (const link of this.links) link.close(1001, 'burrowd is shutting down')
    for (const slot of this.slots.values()) {
      if (slot.graceTimer) clearTimeout(slot.graceTimer)
      for (const waiter of [...(slot.waiters ?? [])]) waiter(null)
    }
  }

  /** Whether `tunnelId` has a connection open on this node (any state). */
  hasConnection(tunnelId: string): boolean {
    return this.linksOf.has(tunnelId)
  }

  /** Tell the clients of `tunnelId` that its access is now `access` (those that read NOTICE). */
  tellAccess(tunnelId: string, access: AccessNote): void {
    for (const link of this.linksOf.get(tunnelId) ?? []) link.tellAccess(access)
  }

  /** The tunnels with a connection open now (any state). */
  connectedTunnelIds(): string[] {
    return [...new Set([...this.links].map((link) => link.tunnel.id))]
  }

  /** Streams in flight across all links, and the body bytes in them waiting for the clients. */
  get streamCount(): number {
    return [...this.links].reduce((n, link) => n + link.mux.streamCount, 0)
  }
  get queuedBytes(): number {
    return [...this.links].reduce((n, link) => n + link.mux.queuedBytes, 0)
  }

  // LinkEvents

  hello(link: TunnelLink, hello: Hello): Welcome {
    const now = this.clock()
    const tunnel = link.tunnel
    const slot = this.slot(tunnel.id)
    const claimed = hello.resume ? this.opts.tokens.verify(tunnel.id, hello.resume, now) : null
    const resumed =
      claimed !== null &&
      (slot.sessionId === null || slot.sessionId === claimed) &&
      this.resumable(slot)
    const { sessionId, token } = this.opts.tokens.issue(
      tunnel.id,
      now,
      resumed && claimed ? claimed : undefined,
    )
    const previous = slot.link
    if (previous && previous !== link) {
      this.opts.log.info(`tunnel ${tunnel.id}: a new connection replaces the previous one`)
      previous.goaway(GOAWAY_CODE.replaced)
      // The old client finishes its in-flight requests and leaves; cut it off if it does not.
      setTimeout(() => previous.close(1000, 'replaced by a newer connection'), 30_000).unref()
    }
    slot.link = link
    slot.sessionId = sessionId
    slot.disconnectedAt = null
    if (slot.graceTimer) clearTimeout(slot.graceTimer)
    slot.graceTimer = null
    link.sessionId = sessionId
    this.opts.log.info(
      `tunnel ${tunnel.id} (${tunnel.subdomain}--${tunnel.accountSlug}) connected${resumed ? ', session resumed' : ''}`,
    )
    void this.opts.touch(tunnel.id)
    this.opts.onHeld?.(tunnel.id)
    if (slot.waiters) {
      queueMicrotask(() => {
        for (const waiter of [...(slot.waiters ?? [])]) waiter(link)
      })
    }
    const drainAfter = this.drainingAfterMs
    // After the welcome, which is sent once this returns.
    if (drainAfter !== null) queueMicrotask(() => link.goaway(GOAWAY_CODE.drain, drainAfter))
    const access = this.opts.access?.(tunnel)
    return {
      version: PROTOCOL_VERSION,
      tunnelId: tunnel.id,
      publicUrl: this.opts.publicUrl(tunnel),
      resumeToken: token,
      resumed,
      graceSecs: Math.round(this.opts.graceMs / 1000),
      heartbeatMs: this.opts.heartbeatMs,
      ...(access ? { access } : {}),
    }
  }

  draining(link: TunnelLink): void {
    this.detach(link)
    setTimeout(() => link.close(1000, 'drained'), DRAINED_LINK_CLOSE_MS).unref()
  }

  closed(link: TunnelLink): void {
    this.links.delete(link)
    const links = this.linksOf.get(link.tunnel.id)
    links?.delete(link)
    if (links?.size === 0) this.linksOf.delete(link.tunnel.id)
    this.detach(link)
  }

  private detach(link: TunnelLink): void {
    const slot = this.slots.get(link.tunnel.id)
    if (!slot || slot.link !== link) return
    slot.link = null
    slot.disconnectedAt = this.clock()
    this.opts.log.info(
      `tunnel ${link.tunnel.id} disconnected; holding it for ${this.opts.graceMs / 1000}s`,
    )
    void this.opts.touch(link.tunnel.id)
    slot.graceTimer = setTimeout(() => {
      if (slot.link === null && this.slots.get(link.tunnel.id) === slot)
        this.forget(link.tunnel.id, slot)
    }, this.opts.graceMs)
    slot.graceTimer.unref()
  }

  private slot(tunnelId: string): Slot {
    let slot = this.slots.get(tunnelId)
    if (!slot) {
      slot = {
        link: null,
        sessionId: null,
        disconnectedAt: null,
        graceTimer: null,
        waiters: null,
      }
      this.slots.set(tunnelId, slot)
    }
    return slot
  }

  /** A session may resume while its link is up or its grace period lasts. */
  private resumable(slot: Slot): boolean {
    return slot.link !== null || this.graceRemaining(slot) > 0
  }

  /**
   * Milliseconds of grace left. A tunnel this node has not seen since it started is treated as
   * in grace for the first period after start: its client is most likely reconnecting to us.
   */
  private graceRemaining(slot: Slot | undefined): number {
    const now = this.clock()
    const since = slot?.disconnectedAt ?? (slot?.link ? null : this.startedAt)
    if (since === null) return 0
    return this.opts.graceMs - (now - since)
  }
}
