/**
 * The tools of one page of a `tools/list` answer that rug-pull protection compares (tool-pins.ts),
 * each pinned once, and the names left out of the answer.
 */
import type { Round } from './list-rounds.js'
import { pinKeyOf } from './pin-key.js'
import { unpinnableName } from './pinnable-name.js'
import type { PinState } from './pin-state.js'
import type { RugPullMode } from './policy.js'
import { pinTool, type PinnedTool } from './tool-definition.js'

/**
 * Most tools of one page hashed, besides those already pinned; the rest are left out of the
 * answer in `hold` mode (no pin knows them) and pass unchecked in `alert` mode.
 */
export const MAX_PAGE_TOOLS = 5000

/**
 * The tools of a listing seen apart from its request (tool-pins.ts `observeReplayed`), pinned
 * once each by key: not those no pin can hold, nor more than `MAX_PAGE_TOOLS` no pin knows.
 */
export function replayedTools(state: PinState, tools: readonly unknown[]): PinnedTool[] {
  const seen = new Set<string>()
  const out: PinnedTool[] = []
  let looked = 0
  for (const tool of tools) {
    const name = (tool as { name?: unknown } | null)?.name
    if (typeof name !== 'string' || name === '' || seen.has(name)) continue
    seen.add(name)
    if (unpinnableName(name) !== null) continue
    const key = pinKeyOf(name)
    if (!state.pins.has(key) && looked >= MAX_PAGE_TOOLS) continue
    looked++
    const p = pinTool(tool, key)
    if (p !== null) out.push(p)
  }
  return out
}

/**
 * The page's tools by the key they are pinned under (pin-key.ts), first copy of each (`seen`),
 * and the names, as listed, to leave out (`left`): those an earlier page of the list had, and in
 * `hold` mode those not pinnable or past the cap.
 */
export function pageTools(
  state: PinState,
  round: Round | null,
  tools: readonly unknown[],
  mode: RugPullMode,
): { seen: Map<string, PinnedTool>; left: Set<string> } {
  const seen = new Map<string, PinnedTool>()
  // Names an earlier page of this list had (a second definition under a name agents saw), and
  // names past the page's cap that no pin knows: left out of the answer, never pinned.
  const left = new Set<string>()
  let looked = 0
  for (const tool of tools) {
    const name = (tool as { name?: unknown } | null)?.name
    if (typeof name !== 'string' || name === '') continue
    if (unpinnableName(name) !== null) {
      // Not pinned (pinnable-name.ts): held in `hold` mode, as tools past the caps are.
      if (mode === 'hold') left.add(name)
      continue
    }
    // One key per name: a name and its key differ only where a secret was masked.
    const key = pinKeyOf(name)
    if (seen.has(key)) continue
    if (round?.names.has(key)) {
      left.add(name)
    } else if (looked < MAX_PAGE_TOOLS || state.pins.has(key)) {
      looked++
      const pin = pinTool(tool, key)
      if (pin !== null) seen.set(key, pin)
    } else if (mode === 'hold') {
      left.add(name)
    }
  }
  return { seen, left }
}
