/**
 * What changed in a tunnel's tools since the owner approved them: each tool of the current set is
 * `approved` (same hash), `changed` (same name, other definition) or `new`; each approved tool
 * missing from it is `removed`, except that a new tool whose definition without its name matches
 * a removed one's is `renamed` (and that removed one is not reported on its own).
 */
import type { PinnedTool } from './tool-definition.js'

/** A tool's standing against the approved set. */
export type ToolStatus = 'approved' | 'changed' | 'new' | 'removed' | 'renamed'

/** One tool's standing. */
export interface ToolStanding {
  readonly name: string
  readonly status: ToolStatus
  /** Hash of the approved definition (for `renamed`, the old tool's), or null for `new`. */
  readonly approvedHash: string | null
  /** Hash of the current definition, or null for `removed`. */
  readonly currentHash: string | null
  /** For `renamed`: the approved name it had. */
  readonly renamedFrom?: string
}

/** Compare the current tools with the approved ones (both by name). */
export function compareTools(
  approved: ReadonlyMap<string, PinnedTool>,
  current: ReadonlyMap<string, PinnedTool>,
): ToolStanding[] {
  const out: ToolStanding[] = []
  const removed = new Map<string, PinnedTool>()
  for (const [name, pin] of approved) if (!current.has(name)) removed.set(name, pin)
  const byBody = new Map<string, PinnedTool>()
  for (const pin of removed.values()) if (!byBody.has(pin.bodyHash)) byBody.set(pin.bodyHash, pin)
  for (const [name, pin] of current) {
    const before = approved.get(name)
    if (before) {
      out.push({
        name,
        status: before.hash === pin.hash ? 'approved' : 'changed',
        approvedHash: before.hash,
        currentHash: pin.hash,
      })
      continue
    }
    const original = byBody.get(pin.bodyHash)
    if (original && removed.has(original.name)) {
      removed.delete(original.name)
      out.push({
        name,
        status: 'renamed',
        approvedHash: original.hash,
        currentHash: pin.hash,
        renamedFrom: original.name,
      })
    } else {
      out.push({ name, status: 'new', approvedHash: null, currentHash: pin.hash })
    }
  }
  for (const [name, pin] of removed) {
    out.push({ name, status: 'removed', approvedHash: pin.hash, currentHash: null })
  }
  return out.sort((a, b) => a.name.localeCompare(b.name))
}
