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
import {
  approvedRow,
  type PinRow,
  type PinStatus,
  type PinnedDefinition,
} from '../store/tool-pins-store.js'
import { awaitBaseline, judgeBaselineWaits } from './baseline-waits.js'
import { KeptDefinitions, keptChars, type Keeping } from './kept-definitions.js'
import { BASELINE_PAGING_MS, pagedBaseline } from './list-paging.js'
import { PinCache } from './pin-cache.js'
import { PinWrites } from './pin-writes.js'
import {
  couldBeRenamed,
  noteName,
  roundOf,
  staleRounds,
  vanishedFrom,
  type Round,
} from './list-rounds.js'
import { heldReasonIn, hiddenNames } from './pin-holds.js'
import { looksLikeIn } from './pin-lookalikes.js'
import type { RugPullMode } from './policy.js'
import { pageTools, replayedTools } from './page-tools.js'
import { hasApprovedBody, isRejectedIn, judgePin, repinned } from './pin-forms.js'
import { renamedApproval, seenRow } from './seen-row.js'
import type { PinnedTool } from './tool-definition.js'
import type { ListPage, PinState } from './pin-state.js'
import type { ToolPinsOptions } from './tool-pins-options.js'

export type { ListPage, PinState, ToolChange } from './pin-state.js'
export type { ToolPinsOptions } from './tool-pins-options.js'
type Tunnel = { readonly id: string; readonly accountId: string }
type Stored = (p: PinnedTool) => PinnedDefinition
/** Keeping that keeps no definition: for tools whose keeping was decided already. */
const NOTHING_KEPT: Keeping = { zeroKnowledge: true }

/** Most tools pinned per tunnel; past it, new tools are not pinned (and held in `hold` mode). */
export const MAX_PINNED_TOOLS = 1000
export { MAX_PAGE_TOOLS } from './page-tools.js'
export { MAX_PINNED_NAME_CHARS } from './pinnable-name.js'

/** Rug-pull pins of every tunnel. */
export class ToolPins {
  readonly #opts: ToolPinsOptions
  readonly #cache: PinCache
  readonly #writes: PinWrites
  readonly #now: () => number
  readonly #kept = new KeptDefinitions()
  /** Baselines that lost to another list's (a later page of one extends nothing). */
  readonly #lost = new WeakSet<Round>()

  constructor(opts: ToolPinsOptions) {
    this.#opts = opts
    this.#now = opts.now ?? Date.now
    this.#writes = new PinWrites(opts)
    this.#cache = new PinCache({
      store: opts.store,
      events: opts.events,
      ttlMs: opts.ttlMs,
      now: this.#now,
      queued: (tunnelId) => this.#writes.queued(tunnelId),
    })
  }

  /** The pins of `tunnelId` when the cache holds them fresh, without waiting; else undefined. */
  cachedState(tunnelId: string): PinState | undefined {
    return this.#cache.cached(tunnelId)
  }

  /** The pins of `tunnelId` (loaded, or from the cache). */
  state(tunnelId: string): Promise<PinState> {
    return this.#cache.state(tunnelId)
  }

  /**
   * The newest pins of `tunnelId` in memory, at once, for a stream that lives long (a GET's, whose
   * request loaded its pins long before the listing it carries): stale ones are reloaded for the
   * next listing meanwhile. Undefined when none are held.
   */
  latestState(tunnelId: string): PinState | undefined {
    const fresh = this.#cache.cached(tunnelId)
    if (fresh !== undefined) return fresh
    this.#cache.state(tunnelId).catch((err: Error) => {
      this.#opts.log.warn(`rug-pull pins of ${tunnelId}: ${err.message}`)
    })
    return this.#cache.held(tunnelId)
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
    this.#settle(tunnel, state, at)
    const kept = state.baselining ? state.baselineRound : null
    const round = roundOf(state.rounds, page, kept, at.getTime(), (r) =>
      this.#giveUp(tunnel, state, r, at),
    )
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
      this.#writes.write(tunnel.id, async () => {
        const lost = round !== null && this.#lost.has(round)
        if (wasBaselined && !lost) await this.#opts.store.extendBaseline(tunnel.id, defs, at)
        else if (lost || !(await this.#opts.store.baseline(tunnel.id, defs, at)))
          await this.#lostBaseline(tunnel, state, round, [...seen.values()], page, at)
      })
      if (complete) this.#judgeWaits(tunnel, state, at)
      return left
    }

    for (const [name, p] of seen) {
      const row = state.pins.get(name)
      if (row) {
        this.#compare(tunnel, state, row, p, () => stored(p), at)
        continue
      }
      if (this.#rejectedAgain(tunnel, state, p, () => stored(p), at)) continue
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
   * A listing seen apart from its request (on the agent's GET stream, or replayed): its page is
   * unknown, so it neither extends the baseline nor has a tool removed or renamed; each tool is
   * judged by name (replayed-listing.ts leaves what is not judged out meanwhile).
   */
  observeReplayed(
    tunnel: Tunnel,
    state: PinState,
    tools: readonly unknown[],
    mode: RugPullMode,
    keep: Keeping,
  ): void {
    if (mode === 'off' || !state.baselined) return
    const at = new Date(this.#now())
    this.#settle(tunnel, state, at)
    for (const p of replayedTools(state, tools)) this.#judgeByName(tunnel, state, p, keep, at)
  }

  /**
   * `p` judged by name against the pins, its page of the list unknown: a pinned tool that changed
   * is `changed` (compared as a listing's tools are, pin-forms.ts, but never restored to
   * approved), one no pin knows `new`, or, while the baseline still pages, waits for it.
   */
  #judgeByName(tunnel: Tunnel, state: PinState, p: PinnedTool, keep: Keeping, at: Date): void {
    const row = state.pins.get(p.name)
    if (row !== undefined) {
      this.#compare(tunnel, state, row, p, () => this.#kept.of(state, p, keep), at, false)
    } else if (this.#rejectedAgain(tunnel, state, p, () => this.#kept.of(state, p, keep), at)) {
      return
    } else if (state.pins.size < MAX_PINNED_TOOLS) {
      if (state.baselining) {
        awaitBaseline(state.baselineWaits, this.#kept.slim(state, p, keep), MAX_PINNED_TOOLS)
      } else {
        this.#see(tunnel, state, p.name, 'new', this.#kept.of(state, p, keep), at)
      }
    }
  }

  /**
   * Another list's baseline was stored first (on another node, or on pins this node read again
   * while this answer was held back): what this list showed, taken as approved here only, is
   * judged by name against the stored pins, and it extends the baseline no further (a hostile
   * review: it was never compared, so one agent could be shown poison beside the baseline).
   */
  async #lostBaseline(
    tunnel: Tunnel,
    state: PinState,
    round: Round | null,
    shown: readonly PinnedTool[],
    keep: Keeping,
    at: Date,
  ): Promise<void> {
    if (round !== null) this.#lost.add(round)
    for (const s of [state, this.#cache.held(tunnel.id)]) {
      if (s?.baselining && s.baselineRound === round) pagedBaseline(s, null, s.baselinePagedAt)
    }
    const stored = await this.#opts.store.load(tunnel.id)
    state.pins.clear()
    for (const row of stored.pins) state.pins.set(row.name, row)
    state.forgotten.clear()
    for (const [name, rejected] of stored.forgotten) state.forgotten.set(name, rejected)
    state.definitionChars = stored.pins.reduce((n, row) => n + keptChars(row), 0)
    for (const p of shown) this.#judgeByName(tunnel, state, p, keep, at)
    this.#cache.drop(tunnel.id)
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
      this.#writes.write(tunnel.id, () => this.#opts.store.repin(tunnel.id, row.name, d, from))
    }
    if (judged.status !== null && (restore || judged.status !== 'approved'))
      this.#see(tunnel, state, row.name, judged.status, def(), at)
  }

  /**
   * `p`, whose name no pin holds, is a definition its owner rejected before forgetting the tool
   * (a removal acknowledged): recorded as `rejected` again, in either mode.
   */
  #rejectedAgain(
    tunnel: Tunnel,
    state: PinState,
    p: PinnedTool,
    def: () => PinnedDefinition,
    at: Date,
  ): boolean {
    const rejected = state.forgotten.get(p.name)
    if (rejected === undefined || !isRejectedIn(rejected, p)) return false
    this.#see(tunnel, state, p.name, 'rejected', def(), at)
    return true
  }

  /**
   * Why a call to `name` is held under `mode`, or null when it may go through. A baseline that
   * waited its time for its next page is taken as it is first, and what waited on it judged.
   */
  heldReason(tunnel: Tunnel, state: PinState, name: string, mode: RugPullMode): string | null {
    this.#settle(tunnel, state, new Date(this.#now()))
    return heldReasonIn(state, name, mode, `${this.#opts.dashboardUrl}${tunnel.id}/tools`)
  }

  /** The server said its tools changed (`notifications/tools/list_changed`). */
  listChanged(tunnelId: string): void {
    const at = new Date(this.#now())
    const state = this.#cache.held(tunnelId)
    if (state) state.listChangedAt = at.toISOString()
    this.#writes.listChanged(tunnelId, at)
  }

  /** Forget the cached state of `tunnelId` here and on every node (resolves once they are told). */
  changed(tunnelId: string): Promise<void> {
    this.#cache.drop(tunnelId)
    return this.#opts.events.publish({ type: 'tunnel', tunnelId })
  }

  /** Resolves when the writes queued so far are done (tests, shutdown). */
  settled(): Promise<void> {
    return this.#writes.settled()
  }

  /**
   * A baseline whose next page was not asked for within `BASELINE_PAGING_MS` stops paging (here,
   * or when the pins are reloaded: list-paging.ts); once the baseline is whole or stopped, what
   * other listings showed meanwhile is judged. Another list is given up after as long.
   */
  #settle(tunnel: Tunnel, state: PinState, at: Date): void {
    const since = at.getTime() - BASELINE_PAGING_MS
    if (state.baselining && state.baselinePagedAt <= since) {
      pagedBaseline(state, null, state.baselinePagedAt)
    }
    if (!state.baselining && state.baselineWaits.size > 0) this.#judgeWaits(tunnel, state, at)
    const kept = state.baselining ? state.baselineRound : null
    for (const r of staleRounds(state.rounds, since, kept)) this.#giveUp(tunnel, state, r, at)
  }

  /** A list no page continues (list-rounds.ts): the new tools it kept for a rename are `new`. */
  #giveUp(tunnel: Tunnel, state: PinState, round: Round, at: Date): void {
    for (const [name, p] of round.pending) {
      if (state.pins.has(name) || state.pins.size >= MAX_PINNED_TOOLS) continue
      this.#see(tunnel, state, name, 'new', this.#kept.of(state, p, NOTHING_KEPT), at)
    }
    round.pending.clear()
  }

  /** The baseline is whole (or stopped paging): record what other lists showed that differs. */
  #judgeWaits(tunnel: Tunnel, state: PinState, at: Date): void {
    // What is kept of a waiting tool was decided when it was shown (`KeptDefinitions.slim`).
    for (const c of judgeBaselineWaits(state, MAX_PINNED_TOOLS))
      this.#see(tunnel, state, c.name, c.status, this.#kept.of(state, c.shown, NOTHING_KEPT), at)
  }

  /** A list is complete: approved tools missing from it are removed, or renamed to a new one. */
  #finish(tunnel: Tunnel, state: PinState, round: Round, stored: Stored, at: Date): void {
    const vanished = vanishedFrom(state.pins, round)
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
    // A tool the owner forgot keeps what they rejected of it (its row holds it in the store).
    const forgotten = before === undefined ? state.forgotten.get(name) : undefined
    state.pins.set(name, seenRow(before, name, status, current, at, renamedFrom, forgotten))
    state.forgotten.delete(name)
    const renamed = renamedApproval(renamedFrom)
    this.#writes.write(tunnel.id, async () => {
      const store = this.#opts.store
      const recorded = await store.recordSeen(tunnel.id, name, status, current, at, renamed)
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
}
