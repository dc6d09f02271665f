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

/** Currencies with no minor unit (ISO 4217): an amount in the lowest denomination is whole. */
const NO_MINOR_UNIT = new Set(
  'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF'.split(' '),
)
/** Currencies with three decimals (ISO 4217). */
const THREE_DECIMALS = new Set('BHD IQD JOD KWD LYD OMR TND'.split(' '))

/**
 * An amount the payment provider gave in the currency's lowest denomination (cents for USD,
 * whole yen for JPY, as Paddle sends money): `$26.99`, `26.99 EUR`, `2050 JPY`.
 */
export function formatMoney(lowest: number, currency: string): string {
  const decimals = NO_MINOR_UNIT.has(currency) ? 0 : THREE_DECIMALS.has(currency) ? 3 : 2
  const amount = (lowest / 10 ** decimals).toFixed(decimals)
  return currency === 'USD' ? `$${amount}` : `${amount} ${currency}`
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

/** A stored ISO time as `formatDateTime` writes it; the text itself when it is not a time. */
export function formatStoredTime(at: string): string {
  const date = new Date(at)
  return Number.isNaN(date.getTime()) ? at : formatDateTime(date)
}

/** A stored ISO time to the millisecond, `Nov 30, 2026, 17:41:52.954 UTC`; else the text itself. */
export function formatStoredInstant(at: string): string {
  const date = new Date(at)
  if (Number.isNaN(date.getTime())) return at
  const [hh, mm, ss] = [date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()].map((n) =>
    String(n).padStart(2, '0'),
  )
  const ms = String(date.getUTCMilliseconds()).padStart(3, '0')
  return `${formatDate(date)}, ${hh}:${mm}:${ss}.${ms} UTC`
}

/** `24 hours`, `30 days`. */
export function formatRetention(hours: number): string {
  if (hours % 24 === 0 && hours >= 48) return `${hours / 24} days`
  return `${hours} hours`
}
