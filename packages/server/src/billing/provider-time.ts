/**
 * The provider's times at full precision. Paddle writes its times with microseconds
 * (`2024-04-12T10:18:49.621022Z`) and a JavaScript `Date` keeps milliseconds, so two events of
 * one subscription in the same millisecond looked simultaneous and were applied in the order they
 * arrived: an older update could undo a newer cancellation delivered first. Event order is
 * therefore kept as microseconds since the Unix epoch, a safe integer until the year 2255, stored
 * beside the ISO-8601 text (migration 024); rows written before keep only milliseconds and are
 * read as the start of their millisecond, which compares exactly as milliseconds did.
 */

/** Microseconds since the Unix epoch. */
export type Micros = number

const FRACTION = /\.(\d+)/

/**
 * The microseconds of an RFC 3339 time that `new Date` accepts (the event parser checks the
 * shape first); digits past the sixth are dropped.
 */
export function parseMicros(value: string): Micros {
  const fraction = FRACTION.exec(value)?.[1] ?? ''
  const seconds = Date.parse(value.replace(FRACTION, ''))
  return seconds * 1000 + Number(fraction.slice(0, 6).padEnd(6, '0'))
}

/** The microseconds of a `Date` (the start of its millisecond). */
export function microsOf(date: Date): Micros {
  return date.getTime() * 1000
}

/** The `Date` (milliseconds) a microsecond time falls in. */
export function dateOf(micros: Micros): Date {
  return new Date(Math.floor(micros / 1000))
}

/**
 * A stored time: its microseconds column if written (PostgreSQL returns `bigint` as text), else
 * the start of the millisecond its ISO-8601 text names (rows from before migration 024).
 */
export function storedMicros(micros: number | string | bigint | null, iso: string): Micros {
  return micros === null ? microsOf(new Date(iso)) : Number(micros)
}
