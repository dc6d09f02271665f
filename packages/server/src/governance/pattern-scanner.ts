/**
 * The owner's redaction patterns, compiled for the edge: one RE2 alternation when they join into
 * a small enough program (what `parsePolicy` requires of new policies), else one program per
 * pattern, applied one after another (a policy stored before that rule still works, up to
 * `MAX_STORED_PROGRAMS` instructions in all; past that its patterns scan nothing and every string
 * is masked whole). Compiled sets are cached, so reloading a policy does not compile it again. A
 * string is first tested with RE2's DFA and only searched for spans when it matches.
 *
 * RE2 runs in time linear in the text, but the factor is the program's size: one search costs up
 * to (instructions × characters) steps, and a search for every match can cost that again each
 * time. So a string is scanned only when one search of it fits the budget's steps, and the scan
 * stops, leaving the string to be masked whole, once it has taken the budget's time for one scan
 * or the tunnel's or the node's time is spent (`ScanBudget`).
 */
import { RE2JS } from 're2js'
import type { Scan } from './scan-budget.js'

/** Largest program the patterns of a new policy may join into (RE2 instructions). */
export const MAX_PATTERN_PROGRAM = 2000
/** Most instructions a stored policy's patterns may take, compiled one by one. */
export const MAX_STORED_PROGRAMS = 20_000
/** Compiled pattern sets kept. */
const CACHED_SETS = 1000

/** The patterns as one alternation, in RE2 syntax. */
export function joinPatterns(patterns: readonly string[]): string {
  return patterns.map((p) => `(?:${p})`).join('|')
}

const cache = new Map<string, PatternScanner>()

/** Compiled patterns, and the spans they match. */
export class PatternScanner {
  /** Null when the patterns are too large to run: every string is masked whole. */
  readonly #programs: readonly RE2JS[] | null

  /** The scanner of `patterns`, compiled once for every policy that has them. */
  static of(patterns: readonly string[]): PatternScanner {
    const key = JSON.stringify(patterns)
    let scanner = cache.get(key)
    if (scanner === undefined) {
      scanner = new PatternScanner(patterns)
      if (cache.size >= CACHED_SETS) cache.delete(cache.keys().next().value!)
    } else {
      cache.delete(key)
    }
    cache.set(key, scanner)
    return scanner
  }

  constructor(patterns: readonly string[]) {
    let joined: RE2JS | null = null
    try {
      joined = RE2JS.compile(joinPatterns(patterns))
    } catch {
      // Too large to join: one by one below.
    }
    this.#programs =
      joined !== null && joined.programSize() <= MAX_PATTERN_PROGRAM
        ? [joined]
        : separately(patterns)
  }

  /** Instructions of all the programs: what one character can cost a scan. */
  get size(): number {
    return this.#programs?.reduce((n, p) => n + p.programSize(), 0) ?? Infinity
  }

  /** Whether the patterns run at all (false: too large, every string is masked whole). */
  get runs(): boolean {
    return this.#programs !== null
  }

  /**
   * `text` with what the patterns match masked, one program after another (`mask` rewrites the
   * text between programs); null when `scan` cannot pay for it.
   */
  scan(
    text: string,
    scan: Scan,
    mask: (text: string, spans: readonly [number, number][]) => string,
  ): string | null {
    if (this.#programs === null) return null
    let out = text
    for (const program of this.#programs) {
      // Each program reads the text as the programs before it left it (masks can lengthen it).
      const steps = program.programSize() * out.length
      if (!scan.fits(steps)) return null
      const found = program.test(out)
      if (scan.searched(steps)) return null
      if (!found) continue
      const spans: [number, number][] = []
      const m = program.matcher(out)
      while (m.find()) {
        if (m.end() > m.start()) spans.push([m.start(), m.end()])
        // Each search can read to the end again: stop once the scan has taken its time.
        if (scan.searched(steps)) return null
      }
      // The last search, which found nothing, read to the end too: counted, so that the scan
      // stops before more work if it is over, but what it found is kept.
      scan.searched(steps)
      out = mask(out, spans)
    }
    return out
  }
}

/** The patterns compiled one by one; null when together they pass `MAX_STORED_PROGRAMS`. */
function separately(patterns: readonly string[]): RE2JS[] | null {
  const programs: RE2JS[] = []
  let size = 0
  for (const p of patterns) {
    const program = RE2JS.compile(p)
    size += program.programSize()
    if (size > MAX_STORED_PROGRAMS) return null
    programs.push(program)
  }
  return programs
}
