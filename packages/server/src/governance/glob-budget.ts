/**
 * Glob matching paid from the tunnel's scan budget (scan-budget.ts), as its redaction patterns
 * are. RE2 matches in time linear in the name, but the factor is the globs' program: a policy of
 * 250 globs of 200 characters (`*a*a*…b`) took 3 to 6 s of the edge's event loop for one batch of
 * 100 calls with 1,000-character names, and a listing of thousands of tools more, so that one
 * owner (with their own server and agent) could stall every tunnel of the node (found by a
 * hostile review). Each match is now counted in steps (the programs' instructions × the name's
 * characters, at most one search's `maxSteps`) and timed into the tunnel's and the node's minute;
 * a match the budget cannot pay for is not made, and the caller fails closed. A match of at most
 * `FREE_GLOB_STEPS` (a 40-character name against 250 instructions) is made whatever the budget
 * holds, untimed: an agent sending long names to a tunnel spends its budget, and ordinary names
 * must still pass then.
 */
import type { Glob } from './tool-rules.js'
import type { ScanBudget } from './scan-budget.js'

/** Steps of a match made whatever the budget holds, and not timed. */
export const FREE_GLOB_STEPS = 10_000

/** Instructions of `globs` together: what one character of a name costs to match them all. */
export function programOf(globs: readonly Glob[]): number {
  return globs.reduce((n, g) => n + g.programSize(), 0)
}

/**
 * `match(glob, name)` for the first of `globs` that it holds for: true when one does, false when
 * none does; null when the budget could not pay for matching them (`program`: their size).
 */
export function matchWithin(
  budget: ScanBudget,
  globs: readonly Glob[],
  name: string,
  match: (glob: Glob, name: string) => boolean,
  program: number = programOf(globs),
): boolean | null {
  if (globs.length === 0) return false
  const steps = program * Math.max(1, name.length)
  if (steps <= FREE_GLOB_STEPS) return globs.some((g) => match(g, name))
  const scan = budget.start()
  try {
    if (!scan.fits(steps)) return null
    const found = globs.some((g) => match(g, name))
    scan.searched(steps)
    return found
  } finally {
    scan.end()
  }
}
