/**
 * Reading one environment variable for a configuration, and the error for a bad value: shared
 * by `config.ts` and the readers of its parts (`config-billing.ts`).
 */
import { ConfigError } from './config-error.js'

/** Environment variables as `process.env` holds them. */
export type Env = Readonly<Record<string, string | undefined>>

/** The variable's value, trimmed; undefined when unset or empty. */
export function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

/** The error for `variable`'s bad `value`, saying what is accepted. */
export function bad(variable: string, value: string, accepted: string): ConfigError {
  return new ConfigError(variable, `${variable}="${value}" is not valid; expected ${accepted}`)
}

/** `value` as an http(s) URL, or null when it is not one. */
export function httpUrlOf(value: string): URL | null {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return null
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null
}
