/**
 * What the broker tells `burrow up` about who may call its tunnel (WELCOME's `access`, and NOTICE
 * when the owner changes it while connected), and the features a client names in HELLO. Both are
 * read here, the codec's way: a value of the wrong shape is a protocol error; a mode or feature
 * this side does not know is kept (a newer peer may have more), and fields it does not know are
 * dropped. Everything kept is safe to print on a terminal.
 */
import type { AccessNote } from './frame.js'
import { ProtocolError } from './protocol-error.js'

/** A feature a client names in `HELLO.features`: it reads NOTICE frames. */
export const FEATURE_NOTICE = 'notice'

/** Most features one HELLO may name. */
export const MAX_FEATURES = 16

/** Longest access URL, in characters. */
export const MAX_ACCESS_URL = 2048

/** A mode or a feature: a short lower-case word. */
const WORD = /^[a-z][a-z0-9_-]{0,31}$/

/** An http(s) URL of printable ASCII with no spaces. */
const URL_TEXT = /^https?:\/\/[\x21-\x7e]+$/

function fail(message: string): never {
  throw new ProtocolError('bad_payload', message)
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** `v` as an access note, or ProtocolError (`what` names the frame). */
export function readAccessNote(v: unknown, what: string): AccessNote {
  if (!isRecord(v)) fail(`${what} access must be an object`)
  const { mode, url } = v
  if (typeof mode !== 'string' || !WORD.test(mode))
    fail(`${what} access mode must be a short lower-case word`)
  if (url === undefined) return { mode }
  if (typeof url !== 'string' || url.length > MAX_ACCESS_URL || !URL_TEXT.test(url))
    fail(`${what} access url must be an http(s) URL of at most ${MAX_ACCESS_URL} characters`)
  return { mode, url }
}

/** `v` as HELLO's feature list, or ProtocolError. */
export function readFeatures(v: unknown): readonly string[] {
  if (
    !Array.isArray(v) ||
    v.length > MAX_FEATURES ||
    !v.every((f) => typeof f === 'string' && WORD.test(f))
  ) {
    fail(`HELLO features must be a list of at most ${MAX_FEATURES} short lower-case words`)
  }
  return v as string[]
}

/** Throws RangeError when `note` is one `readAccessNote` would refuse (a sender's own bug). */
export function checkAccessNote(note: AccessNote): void {
  try {
    readAccessNote(note, 'access')
  } catch (err) {
    throw new RangeError((err as Error).message, { cause: err })
  }
}
