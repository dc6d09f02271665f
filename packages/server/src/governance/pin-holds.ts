/**
 * What rug-pull protection holds from agents in each mode, and how a held call's refusal says
 * why: which tool, what changed since its owner approved it, and where the owner approves it.
 */
import type { PinRow, PinStatus } from '../store/tool-pins-store.js'
import { diffDefinitions } from './definition-diff.js'
import type { RugPullMode } from './policy.js'

/** Statuses held from agents, per mode. */
export const HELD_STATUSES: Readonly<Record<RugPullMode, ReadonlySet<PinStatus>>> = {
  off: new Set(),
  alert: new Set(['rejected']),
  hold: new Set(['changed', 'new', 'renamed', 'rejected']),
}

/** The reason a call to the held tool of `row` is refused; `where` is its Tools page. */
export function heldReasonOf(row: PinRow, where: string): string {
  const what =
    row.status === 'new'
      ? 'is new since its owner approved this tunnel’s tools'
      : row.status === 'renamed'
        ? `is "${row.renamedFrom ?? 'another tool'}" renamed`
        : row.status === 'rejected'
          ? 'has a definition its owner rejected'
          : `changed since its owner approved it (${changedFields(row)})`
  return `the tool "${row.name}" ${what}; it is held until the owner approves it at ${where}`
}

/** What changed in a pin, in a few words: the changed top-level fields. */
export function changedFields(row: PinRow): string {
  if (row.approvedDefinition === null || row.currentDefinition === null) return 'its definition'
  const fields = new Set(
    diffDefinitions(row.approvedDefinition, row.currentDefinition).map(
      (c) => c.path.split(/[.[]/, 1)[0]!,
    ),
  )
  return fields.size === 0 ? 'its definition' : [...fields].join(', ')
}
