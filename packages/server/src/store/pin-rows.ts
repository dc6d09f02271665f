/**
 * The shapes of rug-pull pins as stored (tool-pins-store.ts): a pin row, a tool's status, a
 * definition as pinned, and how a database row reads as one.
 */
import type { Selectable } from 'kysely'
import { LEGACY_PIN_FORM, PIN_FORM } from '../governance/tool-definition.js'
import type { ToolPinsTable } from './governance-schema.js'
import { parseRejected, type RejectedHash } from './rejected-hashes.js'

/** A stored pin. */
export interface PinRow {
  readonly name: string
  readonly status: PinStatus
  readonly approvedHash: string | null
  readonly approvedBodyHash: string | null
  readonly approvedDefinition: string | null
  readonly currentHash: string | null
  readonly currentBodyHash: string | null
  readonly currentDefinition: string | null
  readonly renamedFrom: string | null
  readonly changedAt: string | null
  readonly approvedAt: string | null
  readonly approvedBy: string | null
  /** The field set `approvedHash` covers (governance/tool-definition.ts `PIN_FORM`). */
  readonly approvedForm: number
  /** The field set `currentHash` covers. */
  readonly currentForm: number
  /** Definitions of this tool its owner rejected and has not approved since (rejected-hashes.ts). */
  readonly rejected: readonly RejectedHash[]
}

/** Where a tool stands. */
export type PinStatus = 'approved' | 'changed' | 'new' | 'renamed' | 'removed' | 'rejected'

/** Every status, in the order they are told apart. */
export const STATUSES: readonly PinStatus[] = [
  'approved',
  'changed',
  'new',
  'renamed',
  'removed',
  'rejected',
]

/**
 * What `decide` did: `decided`; `unknown` (no such tool); `stale` (the definition changed since
 * the owner saw it); `not_pending` (only a changed, new or renamed tool can be rejected).
 */
export type Decided = 'decided' | 'unknown' | 'stale' | 'not_pending'

/** A definition as pinned: its hashes and (unless zero knowledge) its text. */
export interface PinnedDefinition {
  readonly hash: string
  readonly bodyHash: string
  readonly definition: string | null
  /** The field set the hashes cover; `PIN_FORM` (what is pinned now) when absent. */
  readonly form?: number
}

/** A `tool_pins` row as a pin; a row stored before migration 027 is of form 1. */
export function toPin(r: Selectable<ToolPinsTable>): PinRow {
  return {
    name: r.name,
    status: STATUSES.find((s) => s === r.status) ?? 'changed',
    approvedHash: r.approved_hash ?? null,
    approvedBodyHash: r.approved_body_hash ?? null,
    approvedDefinition: r.approved_definition ?? null,
    currentHash: r.current_hash ?? null,
    currentBodyHash: r.current_body_hash ?? null,
    currentDefinition: r.current_definition ?? null,
    renamedFrom: r.renamed_from ?? null,
    changedAt: r.changed_at ?? null,
    approvedAt: r.approved_at ?? null,
    approvedBy: r.approved_by ?? null,
    approvedForm: r.approved_form ?? LEGACY_PIN_FORM,
    currentForm: r.current_form ?? LEGACY_PIN_FORM,
    rejected: parseRejected(r.rejected_hashes ?? null),
  }
}

/**
 * Whether `row` is a tool its owner forgot that keeps the definitions they rejected: a removal
 * acknowledged (or the old name of a rename approved) once deleted the row, and its rejections
 * with it, so the rejected definition listed again came back `new`, which `alert` mode passes (a
 * hostile review). Such a row stays as `removed` without an approved definition (which no tool
 * listed or removed has) and its rejected hashes; it is no tool: not shown, not decided, not
 * counted, only looked up when a tool no pin holds is listed under its name (tool-pins.ts).
 */
export function isForgotten(row: { status: string; approvedHash: string | null }): boolean {
  return row.status === 'removed' && row.approvedHash === null
}

/** The row of a tool approved as it was first seen (the baseline), or approved as `def`. */
export function approvedRow(name: string, def: PinnedDefinition | null, at: Date): PinRow {
  return {
    name,
    status: 'approved',
    approvedHash: def?.hash ?? null,
    approvedBodyHash: def?.bodyHash ?? null,
    approvedDefinition: def?.definition ?? null,
    currentHash: def?.hash ?? null,
    currentBodyHash: def?.bodyHash ?? null,
    currentDefinition: def?.definition ?? null,
    renamedFrom: null,
    changedAt: null,
    approvedAt: at.toISOString(),
    approvedBy: 'baseline',
    approvedForm: def?.form ?? PIN_FORM,
    currentForm: def?.form ?? PIN_FORM,
    rejected: [],
  }
}
