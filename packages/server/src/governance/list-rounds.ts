/**
 * Paginated `tools/list` answers followed page by page for rug-pull protection: each list (a
 * "round") gathers the names of its pages, keyed by the cursor its next page will be asked with,
 * so removals and renames are judged on the whole list. Bounded per tunnel: in lists, in names
 * and their characters per list, and in what a cursor costs (a round is keyed by the cursor's
 * hash: a server's `nextCursor` of megabytes, 32 of them, held hundreds of megabytes for as long
 * as the tunnel's pins stayed cached, found by a hostile review).
 */
import { createHash } from 'node:crypto'
import type { PinRow } from '../store/tool-pins-store.js'
import { hasApprovedBody } from './pin-forms.js'
import type { PinnedTool } from './tool-definition.js'

/** A paginated `tools/list` being followed: the names seen so far, the new tools not yet judged. */
export interface Round {
  readonly names: Set<string>
  /** Characters of `names`. */
  chars: number
  /** New tools that may turn out to be renamed ones, judged when the list is complete. */
  readonly pending: Map<string, PinnedTool>
}

/** Where a page sits in its list: the cursor it was asked with, and the next one, if any. */
export interface PagePosition {
  readonly cursor: string | null
  readonly nextCursor: string | null
}

/** Paginated lists followed at once per tunnel. */
const MAX_ROUNDS = 32
/** Names remembered per list; a longer list is not followed further. */
const MAX_ROUND_NAMES = 10_000
/** Characters of the names remembered per list; past them the list is not followed further. */
const MAX_ROUND_CHARS = 256 * 1024

/**
 * The list `page` belongs to, from a tunnel's `rounds`: a new one for a first page, else the one
 * its cursor continues (null when that one is unknown or too long to follow). Past the bound the
 * oldest list is no longer followed, never `kept` (the baseline while it pages: 32 other lists
 * paging at once cut it short, and its later pages were then judged as changes).
 */
export function roundOf(
  rounds: Map<string, Round>,
  page: PagePosition,
  kept: Round | null = null,
): Round | null {
  let round: Round | null
  if (page.cursor === null) {
    round = { names: new Set(), chars: 0, pending: new Map() }
  } else {
    const key = cursorKey(page.cursor)
    round = rounds.get(key) ?? null
    rounds.delete(key)
  }
  if (round && page.nextCursor !== null) {
    if (round.names.size > MAX_ROUND_NAMES || round.chars > MAX_ROUND_CHARS) return null
    if (rounds.size >= MAX_ROUNDS) {
      for (const [key, r] of rounds) {
        if (r === kept) continue
        rounds.delete(key)
        break
      }
    }
    rounds.set(cursorKey(page.nextCursor), round)
  }
  return round
}

/** Add `name` to the names `round` has seen. */
export function noteName(round: Round, name: string): void {
  if (round.names.has(name)) return
  round.names.add(name)
  round.chars += name.length
}

/** What a round is found by: its cursor's hash, whatever the cursor's length. */
function cursorKey(cursor: string): string {
  return createHash('sha256').update(cursor).digest('base64url')
}

/** Whether `p` has the body of an approved tool of `pins` not (yet) seen in `round`. */
export function couldBeRenamed(
  pins: ReadonlyMap<string, PinRow>,
  round: Round,
  p: PinnedTool,
): boolean {
  for (const row of pins.values()) {
    if (hasApprovedBody(row, p) && !round.names.has(row.name)) return true
  }
  return false
}
