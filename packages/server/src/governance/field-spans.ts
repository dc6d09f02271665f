/**
 * Spans of secrets in header fields: the fields of one name are one value to whoever reads them
 * (RFC 9110 §5.3), so they are also scanned joined, and what a scan of the joined text finds is
 * cut back to the fields it covers. A secret split across repeated fields is then masked in each.
 */

/** A span of text to mask: [start, end, the mask's name]. */
export type Span = [number, number, string]

/**
 * The spans of `joined` (`values` joined with `separator`) cut to each value they cover, added to
 * `into[k]` for value `k` (left null when it could not be scanned).
 */
export function addJoinedSpans(
  values: readonly string[],
  separator: string,
  joined: readonly Span[],
  into: (Span[] | null)[],
): void {
  let offset = 0
  for (let k = 0; k < values.length; k++) {
    const start = offset
    const end = start + values[k]!.length
    offset = end + separator.length
    const spans = into[k]
    if (spans === null || spans === undefined) continue
    for (const [s, e, name] of joined) {
      if (s < end && e > start)
        spans.push([Math.max(s, start) - start, Math.min(e, end) - start, name])
    }
  }
}

/** `spans` in order, overlapping ones joined into one (named as the first): nothing half masked. */
export function mergeSpans(spans: readonly Span[]): Span[] {
  if (spans.length < 2) return spans.slice()
  const sorted = spans.slice().sort((a, b) => a[0] - b[0] || b[1] - a[1])
  const out: Span[] = []
  for (const span of sorted) {
    const last = out[out.length - 1]
    if (last !== undefined && span[0] < last[1]) {
      last[1] = Math.max(last[1], span[1])
      continue
    }
    out.push([span[0], span[1], span[2]])
  }
  return out
}
