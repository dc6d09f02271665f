/**
 * The owner's redaction patterns, compiled for the edge: one RE2 alternation when they join into
 * a small enough program (what `parsePolicy` requires of new policies), else one program per
 * pattern, applied one after another (a policy stored before that rule still works). A string is
 * first tested with RE2's DFA and only searched for spans when it matches.
 *
 * RE2 runs in time linear in the text, but the factor is the program's size: a search costs up to
 * (instructions × characters) steps. Every scan is charged that many steps to its tunnel's
 * `ScanBudget`; a string whose scan the budget cannot pay for is not scanned and comes back null,
 * and the redactor masks it whole. So no pattern and no body, however built, can hold a node's
 * event loop for more than a bounded time.
 */
import { RE2JS } from 're2js'
import type { ScanBudget } from './scan-budget.js'

/** Largest program the patterns of a new policy may join into (RE2 instructions). */
export const MAX_PATTERN_PROGRAM = 2000

/** The patterns as one alternation, in RE2 syntax. */
export function joinPatterns(patterns: readonly string[]): string {
  return patterns.map((p) => `(?:${p})`).join('|')
}

/** Compiled patterns, and the spans they match. */
export class PatternScanner {
  readonly #programs: readonly RE2JS[]
  /** Instructions of every program together: the steps one character can cost. */
  readonly size: number

  constructor(patterns: readonly string[]) {
    let programs: RE2JS[]
    try {
      const joined = RE2JS.compile(joinPatterns(patterns))
      programs = joined.programSize() <= MAX_PATTERN_PROGRAM ? [joined] : separately(patterns)
    } catch {
      programs = separately(patterns)
    }
    this.#programs = programs
    this.size = programs.reduce((n, p) => n + p.programSize(), 0)
  }

  /**
   * The spans of `text` the patterns match, masked one program after another (`mask` rewrites the
   * text between programs); null when `budget` cannot pay for the scan.
   */
  scan(
    text: string,
    budget: ScanBudget,
    mask: (text: string, spans: readonly [number, number][]) => string,
  ): string | null {
    let out = text
    for (const program of this.#programs) {
      // Each program reads the text as the programs before it left it (masks can lengthen it).
      if (!budget.take(program.programSize() * out.length)) return null
      const started = performance.now()
      if (program.test(out)) {
        const spans: [number, number][] = []
        const m = program.matcher(out)
        while (m.find()) if (m.end() > m.start()) spans.push([m.start(), m.end()])
        out = mask(out, spans)
      }
      budget.spent(performance.now() - started)
    }
    return out
  }
}

function separately(patterns: readonly string[]): RE2JS[] {
  return patterns.map((p) => RE2JS.compile(p))
}
