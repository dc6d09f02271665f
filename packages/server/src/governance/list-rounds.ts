/**
 * Paginated `tools/list` answers followed page by page for rug-pull protection: each list (a
 * "round") gathers the names of its pages, keyed by the cursor its next page will be asked with,
 * so removals and renames are judged on the whole list. Bounded per tunnel.
 */
import type { PinnedTool } from './tool-definition.js'

/** A paginated `tools/list` being followed: the names seen so far, the new tools not yet judged. */
export interface Round {
  readonly names: Set<string>
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

/**
 * The list `page` belongs to, from a tunnel's `rounds`: a new one for a first page, else the one
 * its cursor continues (null when that one is unknown or too long to follow).
 */
export function roundOf(rounds: Map<string, Round>, page: PagePosition): Round | null {
  let round: Round | null
  if (page.cursor === null) {
    round = { names: new Set(), pending: new Map() }
  } else {
    round = rounds.get(page.cursor) ?? null
    rounds.delete(page.cursor)
  }
  if (round && page.nextCursor !== null) {
    if (round.names.size > MAX_ROUND_NAMES) return null
    if (rounds.size >= MAX_ROUNDS) rounds.delete(rounds.keys().next().value as string)
    rounds.set(page.nextCursor, round)
  }
  return round
}
