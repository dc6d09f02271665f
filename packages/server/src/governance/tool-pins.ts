/**
 * Rug-pull protection at the edge. Every `tools/list` answer that crosses a tunnel is compared,
 * tool by tool, with the tunnel's pins: the first complete list is the approved baseline (no
 * alert on first use); after that a changed definition is `changed`, a tool not seen before `new`
 * (or `renamed` when its definition without the name matches an approved tool that vanished), and
 * an approved tool missing from a complete list `removed`, judged on the whole of a paginated list
 * (list-rounds.ts). Each change is recorded once (also across nodes) and raises one `tool.changed`.
 *
 * In `hold` mode changed, new and renamed tools are left out of `tools/list` and their calls
 * refused (`tool_held`), from the same state; a rejected definition is held in `alert` mode too.
 * Each tunnel's state is kept in memory (a few seconds, dropped when an approval or another node
 * changes it) so the answer being read is filtered at once; definitions are kept to a bound.
 */
import type { Logger } from '@burrow/protocol'
import type { ClusterEvents } from '../cluster/cluster-events.js'
import {
  approvedRow,
  type PinRow,
  type PinStatus,
  type PinnedDefinition,
  type ToolPinsStore,
} from '../store/tool-pins-store.js'
import { awaitBaseline, judgeBaselineWaits } from './baseline-waits.js'
import { Invalidations } from './invalidations.js'
import { KeptDefinitions, keptChars, type Keeping } from './kept-definitions.js'
import { carriedPaging, pagedBaseline } from './list-paging.js'
import { couldBeRenamed, noteName, roundOf, type Round } from './list-rounds.js'
import { heldReasonIn, hiddenNames } from './pin-holds.js'
import { looksLikeIn } from './pin-lookalikes.js'
import type { RugPullMode } from './policy.js'
import { MAX_PAGE_TOOLS, pageTools } from './page-tools.js'
import { hasApprovedBody, judgePin, repinned } from './pin-forms.js'
import { PIN_FORM, pinTool, type PinnedTool } from './tool-definition.js'
import type { ListPage, PinState, ToolChange } from './pin-state.js'

export type { ListPage, PinState, ToolChange } from './pin-state.js'
type Tunnel = { readonly id: string; readonly accountId: string }
type Stored = (p: PinnedTool) => PinnedDefinition

/** Most tools pinned per tunnel; past it, new tools are not pinned (and held in `hold` mode). */
export const MAX_PINNED_TOOLS = 1000
export { MAX_PAGE_TOOLS } from './page-tools.js'
export { MAX_PINNED_NAME_CHARS } from './pinnable-name.js'

/** Options of `new ToolPins`. */
export interface ToolPinsOptions {
  readonly store: ToolPinsStore
  readonly events: ClusterEvents
  readonly log: Logger
  /** A change was recorded (once): raise `tool.changed`. */
  readonly onChange: (change: ToolChange) => Promise<void> | void
  /** Where owners approve tools, e.g. `https://burrow.example/dashboard/tunnels/`. */
  readonly dashboardUrl: string
  readonly ttlMs?: number
  readonly now?: () => number
  /**
   * Whether the tunnel is in zero-knowledge mode now. A listing answered while its owner turned
   * the mode on was pinned under the policy it came with: definitions written then are erased.
   */
  readonly zeroKnowledgeNow?: (tunnelId: string) => boolean | Promise<boolean>
}

/** Rug-pull pins of every tunnel. */
export class ToolPins {
  readonly #opts: ToolPinsOptions
  readonly #cache = new Map<string, PinState>()
  readonly #loading = new Map<string, Promise<PinState>>()
  /** Writes per tunnel, one after another. */
  readonly #writes = new Map<string, Promise<unknown>>()
  /** When each tunnel's server last said its list changed, while that write waits its turn. */
  readonly #listChanges = new Map<string, Date>()
  readonly #now: () => number
  readonly #kept = new KeptDefinitions()
  /** Drops of each tunnel's pins: a read under way across one caches nothing. */
  readonly #dropped = new Invalidations()
  /** The state each dropped tunnel had: its paging outlives the drop (list-paging.ts). */
  readonly #carried = new Map<string, PinState>()

  constructor(opts: ToolPinsOptions) {
    this.#opts = opts
    this.#now = opts.now ?? Date.now
    opts.events.subscribe((event) => {
      if (event.type === 'tunnel') this.#drop(event.tunnelId)
    })
  }

  /** The pins of `tunnelId` when the cache holds them fresh, without waiting; else undefined. */
  cachedState(tunnelId: string): PinState | undefined {
    const cached = this.#cache.get(tunnelId)
    return cached && this.#now() - cached.loadedAt < (this.#opts.ttlMs ?? 5000) ? cached : undefined
  }

  /** The pins of `tunnelId` (loaded, or from the cache). */
  state(tunnelId: string): Promise<PinState> {
    const fresh = this.cachedState(tunnelId)
    if (fresh !== undefined) return Promise.resolve(fresh)
    const cached = this.#cache.get(tunnelId)
    const loading = this.#loading.get(tunnelId)
    if (loading) return loading
    const generation = this.#dropped.of(tunnelId)
    // Writes queued here land first, so the state read back includes them.
    const load: Promise<PinState> = (this.#writes.get(tunnelId) ?? Promise.resolve())
      .then(() => this.#opts.store.load(tunnelId))
      .then((stored) => {
        const state: PinState = {
          baselined: stored.baselined,
          ...carriedPaging(cached ?? this.#carried.get(tunnelId), this.#now()),
          pins: new Map(stored.pins.map((p) => [p.name, p])),
          listChangedAt: stored.listChangedAt,
          loadedAt: this.#now(),
          definitionChars: stored.pins.reduce((n, p) => n + keptChars(p), 0),
        }
        // The pins changed while this read was under way: it may be older, so it serves this
        // caller only.
        if (generation !== this.#dropped.of(tunnelId)) return state
        if (this.#cache.size >= 10_000) this.#cache.clear()
        this.#cache.set(tunnelId, state)
        return state
      })
      .finally(() => {
        if (this.#loading.get(tunnelId) === load) this.#loading.delete(tunnelId)
      })
    this.#loading.set(tunnelId, load)
    return load
  }

  /** A page of a `tools/list` answer: pin its tools, record changes, return names to leave out. */
  observe(
    tunnel: Tunnel,
    state: PinState,
    tools: readonly unknown[],
    page: ListPage,
  ): ReadonlySet<string> {
    if (page.mode === 'off') return new Set()
    const at = new Date(this.#now())
    if (!state.baselining) this.#judgeWaits(tunnel, state, (p) => this.#kept.of(state, p, page), at)
    const round = roundOf(state.rounds, page)
    const { seen, left } = pageTools(state, round, tools, page.mode)
    const stored = (p: PinnedTool) => this.#kept.of(state, p, page)
    if (round) for (const name of seen.keys()) noteName(round, name)
    const complete = page.nextCursor === null
    const hidden = (): ReadonlySet<string> => {
      const names = new Set(hiddenNames(state, seen, page.mode))
      for (const name of left) names.add(name)
      return names
    }

    // The first list is the baseline (no alert on first use); others are compared with it.
    if (!state.baselined || (state.baselining && round !== null && round === state.baselineRound)) {
      if (!state.baselined && page.cursor !== null) return hidden()
      const fresh = [...seen.values()]
        .filter((p) => !state.pins.has(p.name))
        .slice(0, Math.max(0, MAX_PINNED_TOOLS - state.pins.size))
      for (const p of fresh) state.pins.set(p.name, approvedRow(p.name, stored(p), at))
      const wasBaselined = state.baselined
      state.baselined = true
      pagedBaseline(state, complete ? null : round, this.#now())
      const defs = fresh.map((p) => ({ name: p.name, ...stored(p) }))
      this.#write(tunnel.id, () =>
        wasBaselined
          ? this.#opts.store.extendBaseline(tunnel.id, defs, at)
          : this.#opts.store.baseline(tunnel.id, defs, at),
      )
      if (complete) this.#judgeWaits(tunnel, state, stored, at)
      return left
    }

    for (const [name, p] of seen) {
      const row = state.pins.get(name)
      if (row) {
        this.#compare(tunnel, state, row, p, () => stored(p), at)
        continue
      }
      if (state.pins.size >= MAX_PINNED_TOOLS) continue
      if (state.baselining) {
        awaitBaseline(state.baselineWaits, this.#kept.slim(state, p, page), MAX_PINNED_TOOLS)
        continue
      }
      // A new tool could be an approved one renamed: that is known once the list is complete.
      if (round && (complete || couldBeRenamed(state.pins, round, p))) {
        // Held until the list is complete: as little as will be stored of it.
        round.pending.set(name, this.#kept.slim(state, p, page))
      } else {
        this.#see(tunnel, state, name, 'new', stored(p), at)
      }
    }
    if (complete && round && !state.baselining) this.#finish(tunnel, state, round, stored, at)
    return hidden()
  }

  /**
   * A listing seen apart from its request (a GET stream's): its page is unknown, so nothing new
   * is pinned nor judged removed, but a pinned tool that changed is recorded (replayed-listing.ts).
   */
  observeReplayed(
    tunnel: Tunnel,
    state: PinState,
    tools: readonly unknown[],
    mode: RugPullMode,
    keep: Keeping,
  ): void {
    if (mode === 'off' || !state.baselined || state.baselining) return
    const at = new Date(this.#now())
    let looked = 0
    for (const tool of tools) {
      const name = (tool as { name?: unknown } | null)?.name
      if (typeof name !== 'string') continue
      const row = state.pins.get(name)
      if (row === undefined || looked++ >= MAX_PAGE_TOOLS) continue
      const p = pinTool(tool)
      if (p !== null)
        this.#compare(tunnel, state, row, p, () => this.#kept.of(state, p, keep), at, false)
    }
  }

  /**
   * Compare `p` with the pin `row` of its name: re-pin silently a side stored in an earlier form
   * that still matches (pin-forms.ts), record a change. A return to the approved definition is
   * recorded unless `restore` is false (a replayed listing changes nothing back).
   */
  #compare(
    tunnel: Tunnel,
    state: PinState,
    row: PinRow,
    p: PinnedTool,
    def: () => PinnedDefinition,
    at: Date,
    restore = true,
  ): void {
    const judged = judgePin(row, p)
    if (judged.repinApproved || judged.repinCurrent) {
      const d = def()
      state.pins.set(row.name, repinned(row, d, judged))
      const from = {
        approved: judged.repinApproved ? row.approvedHash : null,
        current: judged.repinCurrent ? row.currentHash : null,
      }
      this.#write(tunnel.id, () => this.#opts.store.repin(tunnel.id, row.name, d, from))
    }
    if (judged.status !== null && (restore || judged.status !== 'approved'))
      this.#see(tunnel, state, row.name, judged.status, def(), at)
  }

  /** Why a call to `name` is held under `mode`, or null when it may go through. */
  heldReason(tunnelId: string, state: PinState, name: string, mode: RugPullMode): string | null {
    return heldReasonIn(state, name, mode, `${this.#opts.dashboardUrl}${tunnelId}/tools`)
  }

  /** The server said its tools changed (`notifications/tools/list_changed`). */
  listChanged(tunnelId: string): void {
    const at = new Date(this.#now())
    const state = this.#cache.get(tunnelId)
    if (state) state.listChangedAt = at.toISOString()
    // One write queued per tunnel, of the latest time (a flood queued one each: a hostile review).
    const queued = this.#listChanges.has(tunnelId)
    this.#listChanges.set(tunnelId, at)
    if (queued) return
    this.#write(tunnelId, () => {
      const latest = this.#listChanges.get(tunnelId) ?? at
      this.#listChanges.delete(tunnelId)
      return this.#opts.store.listChanged(tunnelId, latest)
    })
  }

  /** Forget the cached state of `tunnelId` here and on every node (resolves once they are told). */
  changed(tunnelId: string): Promise<void> {
    this.#drop(tunnelId)
    return this.#opts.events.publish({ type: 'tunnel', tunnelId })
  }

  /** Forget what is cached of `tunnelId`, and what a read begun before now would cache. */
  #drop(tunnelId: string): void {
    const cached = this.#cache.get(tunnelId)
    if (this.#carried.size >= 10_000) this.#carried.clear()
    if (cached) this.#carried.set(tunnelId, cached)
    this.#cache.delete(tunnelId)
    this.#loading.delete(tunnelId)
    this.#dropped.note(tunnelId)
  }

  /** Resolves when the writes queued so far are done (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#writes.size > 0) await Promise.allSettled([...this.#writes.values()])
  }

  /** The baseline is whole (or stopped paging): record what other lists showed that differs. */
  #judgeWaits(tunnel: Tunnel, state: PinState, stored: Stored, at: Date): void {
    for (const c of judgeBaselineWaits(state, MAX_PINNED_TOOLS))
      this.#see(tunnel, state, c.name, c.status, stored(c.shown), at)
  }

  /** A list is complete: approved tools missing from it are removed, or renamed to a new one. */
  #finish(tunnel: Tunnel, state: PinState, round: Round, stored: Stored, at: Date): void {
    const vanished: PinRow[] = []
    for (const row of state.pins.values()) {
      if (!round.names.has(row.name) && row.status !== 'removed' && row.approvedHash !== null) {
        vanished.push(row)
      }
    }
    for (const [name, p] of round.pending) {
      if (state.pins.has(name)) continue
      const i = vanished.findIndex((v) => hasApprovedBody(v, p))
      if (i < 0) {
        if (state.pins.size < MAX_PINNED_TOOLS) this.#see(tunnel, state, name, 'new', stored(p), at)
        continue
      }
      const original = vanished.splice(i, 1)[0]!
      this.#see(tunnel, state, name, 'renamed', stored(p), at, original)
      this.#see(tunnel, state, original.name, 'removed', null, at, null, false)
    }
    for (const row of vanished) this.#see(tunnel, state, row.name, 'removed', null, at)
  }

  /** Record in memory at once, then in the store; announce the change when this node wrote it. */
  #see(
    tunnel: Tunnel,
    state: PinState,
    name: string,
    status: PinStatus,
    current: PinnedDefinition | null,
    at: Date,
    renamedFrom: PinRow | null = null,
    announce = true,
  ): void {
    const before = state.pins.get(name)
    state.pins.set(name, {
      ...(before ?? approvedRow(name, null, at)),
      ...(before === undefined
        ? { approvedHash: null, approvedBodyHash: null, approvedDefinition: null }
        : {}),
      ...(renamedFrom
        ? {
            approvedHash: renamedFrom.approvedHash,
            approvedBodyHash: renamedFrom.approvedBodyHash,
            approvedDefinition: renamedFrom.approvedDefinition,
            approvedForm: renamedFrom.approvedForm,
          }
        : {}),
      status,
      currentHash: current?.hash ?? null,
      currentBodyHash: current?.bodyHash ?? null,
      currentDefinition: current?.definition ?? null,
      currentForm: current?.form ?? PIN_FORM,
      renamedFrom: renamedFrom?.name ?? null,
      changedAt: at.toISOString(),
    })
    this.#write(tunnel.id, async () => {
      const recorded = await this.#opts.store.recordSeen(
        tunnel.id,
        name,
        status,
        current,
        at,
        renamedFrom && renamedFrom.approvedHash !== null
          ? {
              from: renamedFrom.name,
              approved: {
                hash: renamedFrom.approvedHash,
                bodyHash: renamedFrom.approvedBodyHash ?? '',
                definition: renamedFrom.approvedDefinition,
                form: renamedFrom.approvedForm,
              },
            }
          : null,
      )
      if (!recorded || !announce || status === 'approved') return
      await this.#opts.onChange({
        tunnelId: tunnel.id,
        accountId: tunnel.accountId,
        tool: name,
        change: status === 'rejected' ? 'changed' : status,
        renamedFrom: renamedFrom?.name ?? null,
        looksLike: looksLikeIn(state.pins, name),
        approvedHash: renamedFrom?.approvedHash ?? before?.approvedHash ?? null,
        currentHash: current?.hash ?? null,
        at,
      })
      void this.#opts.events.publish({ type: 'tunnel', tunnelId: tunnel.id })
    })
  }

  #write(tunnelId: string, work: () => Promise<unknown>): void {
    const previous = this.#writes.get(tunnelId) ?? Promise.resolve()
    const zeroKnowledgeNow = this.#opts.zeroKnowledgeNow
    const next = previous
      .then(work)
      .then(async () => {
        if (zeroKnowledgeNow && (await zeroKnowledgeNow(tunnelId))) {
          await this.#opts.store.eraseDefinitions(tunnelId)
        }
      })
      .catch((err: Error) => this.#opts.log.warn(`rug-pull pins of ${tunnelId}: ${err.message}`))
    this.#writes.set(tunnelId, next)
    void next.finally(() => {
      if (this.#writes.get(tunnelId) === next) this.#writes.delete(tunnelId)
    })
  }
}
