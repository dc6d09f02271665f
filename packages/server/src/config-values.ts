/**
 * The number and switch variables of burrowd's configuration (config.ts): whole numbers with
 * their bounds, yes/no switches and on/off settings, each refused with a `ConfigError` naming
 * the variable, the value and what is accepted.
 */
import { bad, read, type Env } from './config-env.js'

export function positiveInt(env: Env, name: string, fallback: number): number {
  const value = read(env, name)
  if (value === undefined) return fallback
  const number = /^\d+$/.test(value) ? Number(value) : NaN
  if (!(number >= 1 && Number.isSafeInteger(number))) {
    throw bad(name, value, `a whole number of at least 1 (default ${fallback})`)
  }
  return number
}

/** `positiveInt`, at most `max` (a timer's milliseconds must fit in 32 bits). */
export function boundedInt(env: Env, name: string, fallback: number, max: number): number {
  const value = read(env, name)
  if (value === undefined) return fallback
  const number = /^\d+$/.test(value) ? Number(value) : NaN
  if (!(number >= 1 && number <= max)) {
    throw bad(name, value, `a whole number from 1 to ${max} (default ${fallback})`)
  }
  return number
}

export function wholeNumber(env: Env, name: string, fallback: number): number {
  const value = read(env, name)
  if (value === undefined) return fallback
  const number = /^\d+$/.test(value) ? Number(value) : NaN
  if (!Number.isSafeInteger(number)) {
    throw bad(name, value, `a whole number, 0 or more (default ${fallback})`)
  }
  return number
}

/** A yes/no variable, off when unset; the same spellings `burrow` accepts. */
export function parseSwitch(env: Env, name: string): boolean {
  const value = read(env, name)
  if (value === undefined) return false
  const lower = value.toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(lower)) return true
  if (['0', 'false', 'no', 'off'].includes(lower)) return false
  throw bad(name, value, '1 or 0 (also true/false, yes/no, on/off)')
}

export function parseOnOff(env: Env, name: string, fallback: boolean): boolean {
  const value = read(env, name)
  if (value === undefined) return fallback
  const lower = value.toLowerCase()
  if (['on', '1', 'true', 'yes'].includes(lower)) return true
  if (['off', '0', 'false', 'no'].includes(lower)) return false
  throw bad(name, value, `on or off (default ${fallback ? 'on' : 'off'})`)
}
