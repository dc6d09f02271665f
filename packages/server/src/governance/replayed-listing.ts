/**
 * A `tools/list` answer seen apart from its request: on the agent's GET stream, or replayed to a
 * GET with Last-Event-ID. Its page of the list is unknown, so it never extends the baseline nor
 * has a tool judged removed (taken as a first page, it could mark the other pages' tools
 * removed); its tools are judged by name (`ToolPins.observeReplayed`: changed, new, or waiting
 * while the baseline pages), and it is checked against the pins here.
 */
import { isApproved } from './pin-forms.js'
import { pinKeyOf } from './pin-key.js'
import { unpinnableName } from './pinnable-name.js'
import { HELD_STATUSES, unjudged } from './pin-holds.js'
import type { RugPullMode } from './policy.js'
import { pinTool } from './tool-definition.js'
import { MAX_PAGE_TOOLS, type PinState } from './tool-pins.js'

/**
 * The names to leave out of a replayed listing: what a call would be held for, a tool no pin
 * knows while the baseline still pages (not judged yet, in either mode), and in `hold` mode also
 * a tool no pin knows (once a baseline is taken), a definition that is not the approved one (a
 * change the answer to a listing would have recorded), and any tool past the page's cap.
 */
export function unapprovedIn(
  state: PinState,
  tools: readonly unknown[],
  mode: RugPullMode,
): ReadonlySet<string> {
  const left = new Set<string>()
  if (mode === 'off') return left
  let looked = 0
  for (const tool of tools) {
    const name = (tool as { name?: unknown } | null)?.name
    if (typeof name !== 'string') continue
    // A name no pin can have is not keyed (pinnable-name.ts): it is held as unknown.
    const key = unpinnableName(name) === null ? pinKeyOf(name) : null
    const row = key === null ? undefined : state.pins.get(key)
    if (row === undefined) {
      if (unjudged(state, mode)) left.add(name)
      continue
    }
    if (HELD_STATUSES[mode].has(row.status)) left.add(name)
    else if (mode === 'hold' && row.approvedHash !== null) {
      if (looked++ >= MAX_PAGE_TOOLS) left.add(name)
      else {
        const p = pinTool(tool, key ?? undefined)
        if (p === null || !isApproved(row, p)) left.add(name)
      }
    }
  }
  return left
}
