/**
 * A pin as rug-pull protection records it in memory when a listing shows a tool (tool-pins.ts):
 * its status and the definition now listed; a tool no pin knew has no approved side, and a
 * renamed one takes the approved side of the tool it was.
 */
import {
  approvedRow,
  type PinRow,
  type PinStatus,
  type PinnedDefinition,
} from '../store/pin-rows.js'
import type { RejectedHash } from '../store/rejected-hashes.js'
import { PIN_FORM } from './tool-definition.js'

/** What `recordSeen` stores of the tool a renamed one was: its name and approved definition. */
export function renamedApproval(
  renamedFrom: PinRow | null,
): { readonly from: string; readonly approved: PinnedDefinition } | null {
  if (renamedFrom === null || renamedFrom.approvedHash === null) return null
  return {
    from: renamedFrom.name,
    approved: {
      hash: renamedFrom.approvedHash,
      bodyHash: renamedFrom.approvedBodyHash ?? '',
      definition: renamedFrom.approvedDefinition,
      form: renamedFrom.approvedForm,
    },
  }
}

/**
 * The pin `before` (none for a tool no pin knew, which keeps what its owner rejected of it
 * before forgetting it, `forgotten`) once `name` was seen with `status`.
 */
export function seenRow(
  before: PinRow | undefined,
  name: string,
  status: PinStatus,
  current: PinnedDefinition | null,
  at: Date,
  renamedFrom: PinRow | null,
  forgotten: readonly RejectedHash[] = [],
): PinRow {
  return {
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
    ...(before === undefined ? { rejected: forgotten } : {}),
  }
}
