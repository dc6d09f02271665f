/**
 * Usage periods: calendar months in UTC, written `YYYY-MM`. Monthly counters (tool calls,
 * bandwidth) start again at 00:00 UTC on the 1st (docs/api.md#plans). Every function takes the time
 * it works from, so callers and tests decide what "now" is.
 */

/** A period as stored and used in counter keys, e.g. `2026-03`. */
export type Period = string

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/

/** The month last asked about: every counted request asks, and it rarely changes. */
let month = { from: 0, until: 0, period: '', reset: 0 }

/** The calendar month (UTC) holding `time`: its period and the start of the next one. */
function monthOf(time: number): { readonly period: Period; readonly reset: number } {
  if (time >= month.from && time < month.until) return month
  const at = new Date(time)
  const from = monthStart(at.getUTCFullYear(), at.getUTCMonth())
  const until = monthStart(at.getUTCFullYear(), at.getUTCMonth() + 1)
  const number = String(at.getUTCMonth() + 1).padStart(2, '0')
  const period = `${String(at.getUTCFullYear()).padStart(4, '0')}-${number}`
  month = { from, until, period, reset: until }
  return month
}

/** 00:00 UTC on the 1st of `month` (0-based; 12 is January of the next year) of `year`. */
function monthStart(year: number, month: number): number {
  // Not Date.UTC: it reads years 0–99 as 1900–1999.
  const start = new Date(0)
  start.setUTCFullYear(year, month, 1)
  return start.getTime()
}

/** The period (`YYYY-MM`, UTC) that contains `date`. */
export function periodOf(date: Date): Period {
  return monthOf(checkedTime(date)).period
}

/** When the counters of `date`'s period reset: 00:00 UTC on the 1st of the next month. */
export function nextResetOf(date: Date): Date {
  return new Date(monthOf(checkedTime(date)).reset)
}

/**
 * Whole seconds from `date` until the next reset, rounded up, so never 0: the `Retry-After` of
 * a request refused for an exhausted monthly quota.
 */
export function secondsUntilReset(date: Date): number {
  return Math.ceil((nextResetOf(date).getTime() - checkedTime(date)) / 1000)
}

/** The period before `period` (`2026-01` → `2025-12`). Throws RangeError for a malformed one. */
export function previousPeriodOf(period: Period): Period {
  const match = PERIOD.exec(period)
  if (match === null) throw new RangeError(`usage period "${period}" is not YYYY-MM`)
  return periodOf(new Date(Date.UTC(Number(match[1]), Number(match[2]) - 2, 1)))
}

function checkedTime(date: Date): number {
  const time = date.getTime()
  if (Number.isNaN(time)) throw new RangeError('usage period of an invalid Date')
  return time
}
