/**
 * The `quota.warning` threshold, 80% of a limit (docs/webhooks.md#quotawarning), in one place so
 * both counter implementations report the crossing identically. Integer arithmetic only: no
 * rounding of `0.8 * limit` decides whether a warning fires.
 */

/** The warning fires when a counter reaches this percentage of its limit. */
export const WARNING_PERCENT = 80

/**
 * True when an increment took a counter from `before` (below the threshold) to `after` (at or
 * above it). A limit of 0 never warns: nothing can be used under it.
 */
export function crossesWarning(before: number, after: number, limit: number): boolean {
  const threshold = limit * WARNING_PERCENT
  return limit > 0 && before * 100 < threshold && after * 100 >= threshold
}
