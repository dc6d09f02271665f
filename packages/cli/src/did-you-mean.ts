/**
 * "Did you mean …?" for a mistyped flag or command: the known name within a typo's reach of what
 * the user wrote (optimal string alignment distance, so a swapped pair of letters is one edit).
 */

/** The candidate closest to `word`, if it is near enough to be a typo of it; else null. */
export function closestName(word: string, candidates: readonly string[]): string | null {
  const reach = word.length <= 3 ? 1 : 2
  let best: string | null = null
  let bestDistance = reach + 1
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase())
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}

/** Insertions, deletions, substitutions and swaps of neighbours needed to turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = []
  for (let i = 0; i <= a.length; i++) {
    rows.push([i])
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]!.push(j)
        continue
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2]![j - 2]! + 1)
      rows[i]!.push(d)
    }
  }
  return rows[a.length]![b.length]!
}
