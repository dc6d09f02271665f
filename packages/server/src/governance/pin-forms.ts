/**
 * Pins of an earlier form (tool-definition.ts): a pin stored before `icons`, `execution` and the
 * MCP Apps `_meta` keys were pinned holds hashes of the former fields only (form 1). A listed
 * definition matches it when its former fields hash alike; it is then pinned again in the
 * current form, without an alert, so an upgrade does not flag every tool that has a UI. What the
 * new fields were before the upgrade was never seen: the first listing after it is taken as
 * approved, as the first list of a tunnel is. From then on, and for every pin written since,
 * the whole current form is compared, so a tool pinned without a UI that gains one is changed.
 * A definition its owner rejected is compared in the form it was rejected in, and is `rejected`
 * whenever it is listed again (store/rejected-hashes.ts).
 */
import type { RejectedHash } from '../store/rejected-hashes.js'
import type { PinRow, PinStatus, PinnedDefinition } from '../store/tool-pins-store.js'
import { PIN_FORM, type PinnedTool } from './tool-definition.js'

/** What a listed definition means for its pin: sides to re-pin, and a status to record. */
export interface PinJudgement {
  /** The approved side is of an earlier form and matches: pin it again in the current form. */
  readonly repinApproved: boolean
  /** The current side is of an earlier form and matches: pin it again in the current form. */
  readonly repinCurrent: boolean
  /** The status to record (a change, or a return to the approved definition), or null. */
  readonly status: PinStatus | null
}

/** Whether `p` is the approved definition of `row`, compared in the form `row` stored it. */
export function isApproved(row: PinRow, p: PinnedTool): boolean {
  if (row.approvedHash === null) return false
  return (row.approvedForm < PIN_FORM ? p.legacyHash : p.hash) === row.approvedHash
}

/** Whether `p` is the definition `row` last saw, compared in the form `row` stored it. */
export function isCurrent(row: PinRow, p: PinnedTool): boolean {
  if (row.currentHash === null) return false
  return (row.currentForm < PIN_FORM ? p.legacyHash : p.hash) === row.currentHash
}

/** Whether `p` is a definition of `row` its owner rejected (store/rejected-hashes.ts). */
export function isRejected(row: Pick<PinRow, 'rejected'>, p: PinnedTool): boolean {
  return isRejectedIn(row.rejected, p)
}

/** Whether `p` is among the `rejected` definitions, each compared in the form it was rejected in. */
export function isRejectedIn(rejected: readonly RejectedHash[], p: PinnedTool): boolean {
  return rejected.some((r) => (r.form < PIN_FORM ? p.legacyHash : p.hash) === r.hash)
}

/** Whether `p` without its name is the approved definition of `row` (a rename). */
export function hasApprovedBody(row: PinRow, p: PinnedTool): boolean {
  if (row.approvedBodyHash === null) return false
  return (row.approvedForm < PIN_FORM ? p.legacyBodyHash : p.bodyHash) === row.approvedBodyHash
}

/** What `p`, listed under the name of `row`, changes. */
export function judgePin(row: PinRow, p: PinnedTool): PinJudgement {
  if (isApproved(row, p)) {
    const earlier = row.approvedForm < PIN_FORM
    return {
      repinApproved: earlier,
      repinCurrent: earlier && row.status === 'approved',
      status: row.status === 'approved' ? null : 'approved',
    }
  }
  const current = isCurrent(row, p) && row.status !== 'removed'
  if (isRejected(row, p)) {
    // Rejected again when it comes back after another definition (the approved one included).
    return {
      repinApproved: false,
      repinCurrent: current && row.currentForm < PIN_FORM,
      status: current && row.status === 'rejected' ? null : 'rejected',
    }
  }
  if (!current) {
    return {
      repinApproved: false,
      repinCurrent: false,
      status: row.approvedHash === null ? 'new' : 'changed',
    }
  }
  return { repinApproved: false, repinCurrent: row.currentForm < PIN_FORM, status: null }
}

/** `row` with the sides `judged` names pinned again as `def`. */
export function repinned(row: PinRow, def: PinnedDefinition, judged: PinJudgement): PinRow {
  const form = def.form ?? PIN_FORM
  return {
    ...row,
    ...(judged.repinApproved
      ? {
          approvedHash: def.hash,
          approvedBodyHash: def.bodyHash,
          approvedDefinition: def.definition,
          approvedForm: form,
        }
      : {}),
    ...(judged.repinCurrent
      ? {
          currentHash: def.hash,
          currentBodyHash: def.bodyHash,
          currentDefinition: def.definition,
          currentForm: form,
        }
      : {}),
  }
}
