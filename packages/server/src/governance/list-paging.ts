/**
 * What of a tunnel's pins in memory outlives a reload of them (the cache's few seconds, or a drop
 * when an approval or another node changed them): the lists being paged, and a baseline still
 * paging with the tools other lists showed meanwhile (baseline-waits.ts). Before, a reload ended
 * the baseline's paging: its later pages were judged as changes, and another list shown after
 * the reload was compared with half a baseline. A baseline whose next page is not asked for
 * within `BASELINE_PAGING_MS` stops paging, and what waited on it is judged then.
 */
import type { BaselineWaits } from './baseline-waits.js'
import type { Round, Rounds } from './list-rounds.js'
import type { PinState } from './pin-state.js'
import type { PinnedTool } from './tool-definition.js'

/** How long a baseline waits for its next page before it is taken as it is. */
export const BASELINE_PAGING_MS = 60_000

/** The paging part of a tunnel's pins in memory. */
export interface ListPaging {
  readonly rounds: Rounds
  baselining: boolean
  /** The list the baseline is taken from while it pages; other lists are compared with it. */
  baselineRound: Round | null
  /** Tools other lists showed while the baseline paged, judged when it is complete. */
  readonly baselineWaits: BaselineWaits
  /** When the baseline's last page was read. */
  baselinePagedAt: number
}

/** The paging to carry into a reload of the pins, from the state `before` it (if any). */
export function carriedPaging(before: ListPaging | undefined, now: number): ListPaging {
  const baselining =
    before !== undefined && before.baselining && now - before.baselinePagedAt < BASELINE_PAGING_MS
  return {
    rounds: before?.rounds ?? new Map<string, Round[]>(),
    baselining,
    baselineRound: baselining ? before.baselineRound : null,
    baselineWaits: before?.baselineWaits ?? new Map<string, PinnedTool[]>(),
    baselinePagedAt: before?.baselinePagedAt ?? 0,
  }
}

/** A page of the baseline was read: it ends the paging when `round` is null (the list is whole). */
export function pagedBaseline(state: PinState, round: Round | null, now: number): void {
  state.baselining = round !== null
  state.baselineRound = round
  state.baselinePagedAt = now
}
