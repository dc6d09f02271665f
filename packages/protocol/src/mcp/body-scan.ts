/**
 * One pass over the raw bytes of an agent's body before it is parsed: how deep it nests (a body of
 * brackets costs the parser far more than its size suggests), and which messages name a member
 * twice in one object. `JSON.parse` keeps the last of two same-named members, and so does the
 * edge's governance; a server whose parser keeps the first (RapidJSON's lookup, some hand-written
 * readers) would then run a call no policy looked at (`{"name":"secret","name":"safe"}`), so such
 * a message is refused, as Go's encoding/json/v2 and serde's derived readers refuse it.
 *
 * The scan trusts nothing: on text that is not JSON its findings mean nothing, and the parse that
 * follows refuses the body anyway.
 */

/** What `scanBody` found. */
export interface BodyScan {
  /** The deepest nesting of `[` and `{` outside strings; `stop + 1` once it passed `stop`. */
  readonly depth: number
  /**
   * The first member named twice in one object of each message that has one: by element of the
   * batch, or under `-1` for a body of one message. Null when there is none.
   */
  readonly repeated: ReadonlyMap<number, RepeatedMember> | null
}

/** A member named twice in one object. */
export interface RepeatedMember {
  readonly name: string
  /** Whether the object is the message itself (its `id` may be one of the two). */
  readonly inMessage: boolean
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN_OBJECT = 0x7b
const OPEN_ARRAY = 0x5b
const CLOSE_OBJECT = 0x7d
const CLOSE_ARRAY = 0x5d

/**
 * An open container: `ARRAY`, an object with no member yet (`NO_NAMES`), or an object's names so
 * far: as the offsets of their bytes (start, end, start, end…) while they are few and written
 * without escapes, so that most messages make no string to check them, or else as strings.
 */
type Open = typeof ARRAY | typeof NO_NAMES | number[] | Set<string>
const ARRAY = 0
const NO_NAMES = 1
/** Names an object keeps as offsets before they become a set. */
const FEW_NAMES = 16

/** Scan `bytes` (UTF-8 JSON, unchecked), stopping as soon as the nesting passes `stop`. */
export function scanBody(bytes: Uint8Array, stop: number): BodyScan {
  const text = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const open: Open[] = []
  let deepest = 0
  let repeated: Map<number, RepeatedMember> | null = null
  // Which message of a batch the scan is in (commas at the batch's own level), or -1.
  let element = -1
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text[i]!
    if (c === QUOTE) {
      let end = text.indexOf(QUOTE, i + 1)
      while (end !== -1 && escaped(text, end)) end = text.indexOf(QUOTE, end + 1)
      if (end === -1) break
      const top = open.length - 1
      const names = open[top]
      if (names !== undefined && names !== ARRAY && isMemberName(text, end + 1)) {
        const name = seen(text, open, top, names, i + 1, end)
        if (name !== null) {
          repeated ??= new Map()
          const inMessage = open.length === (element === -1 ? 1 : 2)
          if (!repeated.has(element)) repeated.set(element, { name, inMessage })
        }
      }
      i = end
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (open.length === 0 && c === OPEN_ARRAY) element = 0
      open.push(c === OPEN_OBJECT ? NO_NAMES : ARRAY)
      if (open.length > deepest) {
        deepest = open.length
        if (deepest > stop) break
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop()
    } else if (c === COMMA && open.length === 1 && open[0] === ARRAY) {
      element++
    }
  }
  return { depth: deepest, repeated }
}

/**
 * Note the name written between `from` and `to` among the names of object `open[top]`; the name
 * when the object already had it, else null.
 */
function seen(
  text: Buffer,
  open: Open[],
  top: number,
  names: typeof NO_NAMES | number[] | Set<string>,
  from: number,
  to: number,
): string | null {
  let plain = true
  for (let i = from; i < to && plain; i++) plain = text[i] !== BACKSLASH
  if (plain && names === NO_NAMES) {
    open[top] = [from, to]
    return null
  }
  if (plain && Array.isArray(names) && names.length < 2 * FEW_NAMES) {
    for (let k = 0; k < names.length; k += 2) {
      if (sameBytes(text, names[k]!, names[k + 1]!, from, to))
        return text.toString('utf8', from, to)
    }
    names.push(from, to)
    return null
  }
  // Escaped, or many: the names as strings, read as JSON.parse reads them.
  let set: Set<string>
  if (names instanceof Set) set = names
  else {
    set = new Set()
    if (Array.isArray(names)) {
      for (let k = 0; k < names.length; k += 2)
        set.add(text.toString('utf8', names[k], names[k + 1]))
    }
    open[top] = set
  }
  const name = plain ? text.toString('utf8', from, to) : nameText(text, from, to)
  if (set.has(name)) return name
  set.add(name)
  return null
}

/** Whether bytes `a` to `aEnd` of `text` are those from `b` to `bEnd`. */
function sameBytes(text: Buffer, a: number, aEnd: number, b: number, bEnd: number): boolean {
  const n = aEnd - a
  if (n !== bEnd - b) return false
  // Long names (a crafted body repeats a long prefix) are compared natively.
  if (n > 32) return text.compare(text, b, bEnd, a, aEnd) === 0
  for (let i = 0; i < n; i++) if (text[a + i] !== text[b + i]) return false
  return true
}

/** Whether the string that ended before `from` names a member: a colon follows it. */
function isMemberName(bytes: Uint8Array, from: number): boolean {
  for (let i = from; i < bytes.length; i++) {
    const c = bytes[i]!
    if (c === COLON) return true
    // JSON's whitespace: space, tab, line feed, carriage return.
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false
  }
  return false
}

/** The member name written with escapes between `from` and `to`, read as `JSON.parse` reads it. */
function nameText(text: Buffer, from: number, to: number): string {
  try {
    return JSON.parse(text.toString('utf8', from - 1, to + 1)) as string
  } catch {
    // Not JSON: the parse that follows refuses the body.
    return text.toString('latin1', from, to)
  }
}

/** Whether the quote at `at` is escaped: an odd number of backslashes before it. */
function escaped(bytes: Uint8Array, at: number): boolean {
  let count = 0
  for (let i = at - 1; i >= 0 && bytes[i] === BACKSLASH; i--) count++
  return count % 2 === 1
}
