/**
 * How the dashboard and pricing page write numbers, sizes, prices and dates: the same words
 * everywhere, in UTC.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** `100,000`. */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

/** Decimal units, as bandwidth is sold: `5 GB`, `1.2 MB`, `512 B`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  const digits = unit === 0 || value >= 100 || Number.isInteger(value) ? 0 : 1
  return `${value.toFixed(digits)} ${units[unit]}`
}

/** `$12`, `$0`. */
export function formatUsd(amount: number): string {
  return Number.isInteger(amount) ? `$${amount}` : `$${amount.toFixed(2)}`
}

/** `Dec 1, 2026` (UTC). */
export function formatDate(at: Date): string {
  return `${MONTHS[at.getUTCMonth()]} ${at.getUTCDate()}, ${at.getUTCFullYear()}`
}

/** `Dec 1, 2026, 00:00 UTC`. */
export function formatDateTime(at: Date): string {
  const hh = String(at.getUTCHours()).padStart(2, '0')
  const mm = String(at.getUTCMinutes()).padStart(2, '0')
  return `${formatDate(at)}, ${hh}:${mm} UTC`
}

/** `24 hours`, `30 days`. */
export function formatRetention(hours: number): string {
  if (hours % 24 === 0 && hours >= 48) return `${hours / 24} days`
  return `${hours} hours`
}
