/**
 * Paginated `tools/list` answers followed page by page for rug-pull protection: each list (a
 * "round") gathers the names of its pages, keyed by the cursor its next page will be asked with,
 * so removals and renames are judged on the whole list. Bounded per tunnel: in lists, in names
 * and their characters per list, and in what a cursor costs (a round is keyed by the cursor's
 * hash: a server's `nextCursor` of megabytes, 32 of them, held hundreds of megabytes for as long
 * as the tunnel's pins stayed cached, found by a hostile review).
 *
 * Lists may wait at the same cursor: a cursor says where in the server's list a page starts, and
 * a server whose cursors are offsets gives every list the same one. Each page asked with it
 * continues one of them, the baseline first, else the one that reached it first. Before, the
 * later list replaced the earlier at that cursor: another agent's list (or a server giving
 * another list the baseline's cursor) took the baseline's next page, whose tools then waited as
 * not yet compared (held, in `alert` mode too) until the baseline gave up 60 s later and judged
 * them `new`, false alarms every one.
 *
 * A list no page continues any more (its next page not asked for within 60 s, as when an agent
 * reads a first page only, or dropped past a bound) is given up, and the new tools that waited
 * for its end to tell a rename are judged `new` (tool-pins.ts). Before, they waited for good:
 * `alert` mode passed such a tool with no alert, and `hold` mode held it without showing it to
 * the owner for approval.
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
  /** When its last page was read. */
  pagedAt: number
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

/** The lists being paged, by the hash of the cursor their next page is asked with, oldest first. */
export type Rounds = Map<string, Round[]>

/**
 * The list `page` (read at `now`) belongs to, from a tunnel's `rounds`: a new one for a first page,
 * else one its cursor continues, `kept` first (null when none is known, or it is too long to
 * follow). Past the bound the oldest list is no longer followed, never `kept` (the baseline while
 * it pages: 32 other lists paging at once cut it short, and its later pages were then judged as
 * changes). A list no longer followed is given to `dropped`.
 */
export function roundOf(
  rounds: Rounds,
  page: PagePosition,
  kept: Round | null = null,
  now = 0,
  dropped: (round: Round) => void = () => {},
): Round | null {
  const round =
    page.cursor === null
      ? { names: new Set<string>(), chars: 0, pending: new Map<string, PinnedTool>(), pagedAt: now }
      : takeRound(rounds, cursorKey(page.cursor), kept)
  if (round && page.nextCursor !== null) {
    round.pagedAt = now
    if (round.names.size > MAX_ROUND_NAMES || round.chars > MAX_ROUND_CHARS) {
      dropped(round)
      return null
    }
    if ([...rounds.values()].reduce((n, waiting) => n + waiting.length, 0) >= MAX_ROUNDS) {
      const oldest = dropOldest(rounds, kept)
      if (oldest !== null) dropped(oldest)
    }
    const key = cursorKey(page.nextCursor)
    const waiting = rounds.get(key)
    if (waiting === undefined) rounds.set(key, [round])
    else waiting.push(round)
  }
  return round
}

/** The list waiting at `key` a page asked with it continues: `kept`, else the oldest. */
function takeRound(rounds: Rounds, key: string, kept: Round | null): Round | null {
  const waiting = rounds.get(key)
  if (waiting === undefined) return null
  const i = kept === null ? -1 : waiting.indexOf(kept)
  const [round] = waiting.splice(Math.max(i, 0), 1)
  if (waiting.length === 0) rounds.delete(key)
  return round ?? null
}

/** Stop following the oldest list of `rounds` but `kept`; that list, if any. */
function dropOldest(rounds: Rounds, kept: Round | null): Round | null {
  for (const [key, waiting] of rounds) {
    const i = waiting.findIndex((r) => r !== kept)
    if (i < 0) continue
    const [oldest] = waiting.splice(i, 1)
    if (waiting.length === 0) rounds.delete(key)
    return oldest ?? null
  }
  return null
}

/** Stop following the lists of `rounds` but `kept` whose last page was read at `before` or earlier. */
export function staleRounds(rounds: Rounds, before: number, kept: Round | null): Round[] {
  const stale: Round[] = []
  for (const [key, waiting] of rounds) {
    for (const r of waiting) if (r !== kept && r.pagedAt <= before) stale.push(r)
    const left = waiting.filter((r) => !stale.includes(r))
    if (left.length === 0) rounds.delete(key)
    else if (left.length < waiting.length) rounds.set(key, left)
  }
  return stale
}

/** The approved tools of `pins` a complete list (`round`) lacks, not already removed. */
export function vanishedFrom(pins: ReadonlyMap<string, PinRow>, round: Round): PinRow[] {
  return [...pins.values()].filter(
    (row) => !round.names.has(row.name) && row.status !== 'removed' && row.approvedHash !== null,
  )
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
