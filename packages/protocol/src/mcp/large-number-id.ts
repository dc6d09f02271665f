/**
 * Numeric JSON-RPC ids that a JavaScript number cannot hold exactly (beyond ±(2^53 − 1)).
 * `JSON.parse` rounds them, so a message carrying one is refused (RFC 8259 §6 says such integers
 * do not survive between programs), and its refusal echoes the digits the agent sent, read from
 * the raw text, so that an agent that reads ids exactly can match it.
 */

/** The largest magnitude of a numeric id that every JSON reader holds exactly. */
export const MAX_EXACT_ID = Number.MAX_SAFE_INTEGER

/** The problem of a message whose numeric id is too large, as a sentence for the agent. */
export const LARGE_ID_PROBLEM =
  `a numeric id must lie within ±${MAX_EXACT_ID} (2^53 − 1), where every JSON reader holds it ` +
  'exactly; send a larger id as a string'

/** True for a number too large to be an id (it was rounded when it was parsed). */
export function isLargeNumberId(id: unknown): id is number {
  return typeof id === 'number' && Math.abs(id) > MAX_EXACT_ID
}

const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/** A refused numeric id, kept as the digits the agent sent. */
export class LargeNumberId {
  /** `text` as sent when it is a JSON number (always, in text `JSON.parse` read), else `id`'s. */
  constructor(text: string | null, id: number) {
    this.text = text !== null && NUMBER_TEXT.test(text) ? text : String(id)
  }

  /** The number as JSON text. */
  readonly text: string

  /** For a serializer that does not know this class: the digits as a string, never rounded. */
  toJSON(): string {
    return this.text
  }
}

/**
 * `JSON.stringify(value)`, with every `LargeNumberId` in it written as the number it holds. Each
 * is written first as a string no agent can have sent (it carries a fresh random token), then
 * that string's JSON is replaced by the digits.
 */
export function stringifyWithLargeIds(value: unknown): string {
  const large: LargeNumberId[] = []
  const token = globalThis.crypto.randomUUID()
  const json = JSON.stringify(value, function (this: Record<string, unknown>, key, v: unknown) {
    const original = this[key]
    if (!(original instanceof LargeNumberId)) return v
    large.push(original)
    return `\u0000${token}:${large.length - 1}`
  })
  if (large.length === 0) return json
  let out = json
  large.forEach((id, i) => {
    out = out.split(JSON.stringify(`\u0000${token}:${i}`)).join(id.text)
  })
  return out
}
