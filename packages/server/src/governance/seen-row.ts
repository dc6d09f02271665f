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
import { PIN_FORM } from './tool-definition.js'

/** The pin `before` (none for a tool no pin knew) once `name` was seen with `status`. */
export function seenRow(
  before: PinRow | undefined,
  name: string,
  status: PinStatus,
  current: PinnedDefinition | null,
  at: Date,
  renamedFrom: PinRow | null,
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
  }
}
