/** A field of a JSON request body that may be left out (or null), else must be a string. */
import { HttpError } from '../../http/http-error.js'

/** `body[key]` as a string, or undefined when absent or null; 400 `invalid` otherwise. */
export function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw new HttpError(400, 'invalid', `"${key}" must be a string`)
  return value
}
