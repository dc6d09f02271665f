/**
 * What rug-pull protection holds from agents in each mode, and how a held call's refusal says
 * why: which tool, what changed since its owner approved it, and where the owner approves it.
 */
import type { PinRow, PinStatus } from '../store/tool-pins-store.js'
import { diffDefinitions } from './definition-diff.js'
import { BASELINE_PAGING_MS } from './list-paging.js'
import { pinKeyOf } from './pin-key.js'
import { looksLikeIn } from './pin-lookalikes.js'
import { unpinnableName } from './pinnable-name.js'
import type { PinState } from './pin-state.js'
import type { RugPullMode } from './policy.js'
import type { PinnedTool } from './tool-definition.js'

/** Statuses held from agents, per mode. */
export const HELD_STATUSES: Readonly<Record<RugPullMode, ReadonlySet<PinStatus>>> = {
  off: new Set(),
  alert: new Set(['rejected']),
  hold: new Set(['changed', 'new', 'renamed', 'rejected']),
}

/** The names, as listed, of `seen` (a page's tools by key) agents may not see under `mode`. */
export function hiddenNames(
  state: PinState,
  seen: ReadonlyMap<string, PinnedTool>,
  mode: RugPullMode,
): ReadonlySet<string> {
  const hidden = new Set<string>()
  for (const [key, p] of seen) {
    const row = state.pins.get(key)
    if (row === undefined ? unjudged(state, mode) : HELD_STATUSES[mode].has(row.status))
      hidden.add(p.listed)
  }
  return hidden
}

/**
 * Whether a tool no pin knows is held from agents under `mode`: in `hold` mode once a baseline
 * is taken; in either mode while the baseline still pages, as such a tool is not judged until
 * the baseline is whole (or stopped paging). Before, it reached agents in `alert` mode unjudged.
 */
export function unjudged(state: PinState, mode: RugPullMode): boolean {
  if (mode === 'off') return false
  return state.baselining || (mode === 'hold' && state.baselined)
}

/**
 * Why a call to `name` is held under `mode` with the pins of `state`, or null when it may go
 * through; `where` is the tunnel's Tools page. The reason names the tool by its key (a secret
 * in the name masked).
 */
export function heldReasonIn(
  state: PinState,
  name: string,
  mode: RugPullMode,
  where: string,
): string | null {
  // A name no pin can have is not keyed: an agent's name of megabytes cost a scan per call.
  const unpinnable = unpinnableName(name)
  const key = unpinnable === null ? pinKeyOf(name) : null
  const row = key === null ? undefined : state.pins.get(key)
  if (row === undefined) {
    if (!unjudged(state, mode)) return null
    if (unpinnable !== null || key === null) {
      // Never pinned, so never shown for approval: the reason says so, without the name.
      if (mode !== 'hold') return null
      return `${unpinnable}; such tools are not pinned, and are held on tunnels in hold mode`
    }
    if (state.baselining) {
      return (
        `the tool "${key}" is not yet compared with the first list of this tunnel's tools, ` +
        `which is still being read; it is held until that list is complete (at most ` +
        `${BASELINE_PAGING_MS / 1000} s after its last page), then judged: list the tools again then`
      )
    }
    return (
      `the tool "${key}" is not among the tools this tunnel's owner approved; ` +
      `it is held until the owner approves it at ${where}`
    )
  }
  if (!HELD_STATUSES[mode].has(row.status)) return null
  return heldReasonOf(row, where, looksLikeIn(state.pins, row.name))
}

/**
 * The reason a call to the held tool of `row` is refused; `where` is its Tools page, `looksLike`
 * another tool whose name this one's imitates.
 */
export function heldReasonOf(row: PinRow, where: string, looksLike: string | null = null): string {
  const what =
    row.status === 'new'
      ? 'is new since its owner approved this tunnel’s tools'
      : row.status === 'renamed'
        ? `is "${row.renamedFrom ?? 'another tool'}" renamed`
        : row.status === 'rejected'
          ? 'has a definition its owner rejected'
          : `changed since its owner approved it (${changedFields(row)})`
  const lookalike = looksLike === null ? '' : ` (its name looks like the tool "${looksLike}")`
  return `the tool "${row.name}"${lookalike} ${what}; it is held until the owner approves it at ${where}`
}

/**
 * What changed in a pin, in a few words: the changed top-level fields, and for `_meta` the
 * pinned key under it (`_meta.ui`).
 */
export function changedFields(row: PinRow): string {
  if (row.approvedDefinition === null || row.currentDefinition === null) return 'its definition'
  const fields = new Set(
    diffDefinitions(row.approvedDefinition, row.currentDefinition).map(
      (c) => /^_meta\.[^.[]+|^[^.[]+/.exec(c.path)?.[0] ?? c.path,
    ),
  )
  return fields.size === 0 ? 'its definition' : [...fields].join(', ')
}
