/**
 * Tools another listing showed while a tunnel's first listing was still paging (the baseline is
 * taken from that first listing alone), a GET stream's included. A tool the baseline already
 * holds is compared at once; one it does not hold yet waits here, and is judged once the first
 * listing is complete (or stopped paging): `new` when the baseline never listed it, `changed`
 * when the baseline's definition is another one. Meanwhile it is held from agents in either mode
 * (pin-holds.ts `unjudged`). Before, such a listing was taken into the baseline uncompared, so a
 * server could show the baseline one definition set and a second agent another (a hostile
 * review), and then, in `alert` mode, such a tool reached the agent before it was judged.
 */
import type { PinStatus } from '../store/tool-pins-store.js'
import { isApproved, isCurrent } from './pin-forms.js'
import type { PinState } from './pin-state.js'
import type { PinnedTool } from './tool-definition.js'

/** Tools shown while the baseline pages, by name: at most two distinct definitions each. */
export type BaselineWaits = Map<string, PinnedTool[]>

/**
 * Note that `p` was shown under `name` while the baseline pages; `room` bounds the names kept.
 * Two distinct definitions suffice: the baseline can equal one of them at most.
 */
export function awaitBaseline(waits: BaselineWaits, p: PinnedTool, room: number): void {
  const shown = waits.get(p.name)
  if (shown === undefined) {
    if (waits.size < room) waits.set(p.name, [p])
  } else if (shown.length < 2 && shown.every((s) => s.hash !== p.hash)) {
    shown.push(p)
  }
}

/** One tool shown while the baseline paged that is not as the complete baseline has it. */
export interface AwaitedChange {
  readonly name: string
  readonly shown: PinnedTool
  readonly status: Extract<PinStatus, 'new' | 'changed'>
}

/**
 * The baseline of `state` is complete: what was shown beside it and differs, new tools only
 * while the tunnel has fewer than `cap` pins (the waits are emptied).
 */
export function judgeBaselineWaits(state: PinState, cap: number): AwaitedChange[] {
  const changes: AwaitedChange[] = []
  let room = cap - state.pins.size
  for (const [name, shown] of state.baselineWaits) {
    const row = state.pins.get(name)
    const other = shown.find(
      (p) => row === undefined || (!isApproved(row, p) && !isCurrent(row, p)),
    )
    if (other === undefined) continue
    if (row === undefined && room-- <= 0) continue
    const status = row === undefined || row.approvedHash === null ? 'new' : 'changed'
    changes.push({ name, shown: other, status })
  }
  state.baselineWaits.clear()
  return changes
}
