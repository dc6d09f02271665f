/**
 * Which other tool of a tunnel a pinned tool's name looks like (name-skeleton.ts), for the
 * Tools tab, the API, the `tool.changed` webhook and a held call's refusal. Only tools waiting
 * for the owner or rejected are flagged (a new, changed, renamed or rejected one); they are
 * matched against every pinned tool of the tunnel, approved ones preferred.
 */
import type { PinRow, PinStatus } from '../store/tool-pins-store.js'
import { LookalikeIndex } from './name-skeleton.js'

/** Statuses of tools whose name is matched against the others'. */
export const LOOKALIKE_FLAGGED: ReadonlySet<PinStatus> = new Set([
  'new',
  'changed',
  'renamed',
  'rejected',
])

/** An index of `pins`' names, those with an approved definition first. */
export function lookalikeIndex(pins: Iterable<PinRow>): LookalikeIndex {
  const rows = [...pins]
  return new LookalikeIndex([
    ...rows.filter((p) => p.approvedHash !== null).map((p) => p.name),
    ...rows.filter((p) => p.approvedHash === null).map((p) => p.name),
  ])
}

/** Indexes of the pins kept in memory (a tunnel's state lives a few seconds), by their map. */
const INDEXES = new WeakMap<ReadonlyMap<string, PinRow>, LookalikeIndex>()

/**
 * The name another of `pins` has that `name` looks like, or null (also when `name`'s status is
 * not flagged). The index of `pins` is built once and extended as tools are pinned, so a call
 * held again and again costs a lookup, not a skeleton of every name.
 */
export function looksLikeIn(pins: ReadonlyMap<string, PinRow>, name: string): string | null {
  const row = pins.get(name)
  if (row === undefined || !LOOKALIKE_FLAGGED.has(row.status)) return null
  let index = INDEXES.get(pins)
  if (index === undefined) {
    index = lookalikeIndex(pins.values())
    INDEXES.set(pins, index)
  } else {
    for (const key of pins.keys()) index.add(key)
  }
  return index.looksLike(name)
}
