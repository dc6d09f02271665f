/**
 * A check of JSON's grammar (RFC 8259, as `JSON.parse` reads it) that says where text breaks it
 * instead of throwing. `JSON.parse` refuses broken text with an exception, which costs V8 about
 * eight times the parse of a short message: run first on short text, this check spares the
 * exception, so a stream of short broken events costs what a stream of messages does.
 */

const SPACE = 0x20
const TAB = 0x09
const LF = 0x0a
const CR = 0x0d
const QUOTE = 0x22
const BACKSLASH = 0x5c
const MINUS = 0x2d
const PLUS = 0x2b
const DOT = 0x2e
const ZERO = 0x30
const NINE = 0x39
const COLON = 0x3a
const COMMA = 0x2c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

/** An open container, on the check's stack. */
const IN_OBJECT = 1
const IN_ARRAY = 2

/**
 * The offset where `text` stops being one JSON value (its length when it ends early), or -1.
 * Iterative, with a stack of the containers open: text nested as deep as it is long must not
 * overflow the call stack where `JSON.parse` (iterative too) reads it.
 */
export function jsonSyntaxError(text: string): number {
  const open: number[] = []
  let i = space(text, 0)
  for (;;) {
    // A value starts at i.
    const c = text.charCodeAt(i)
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      i = space(text, i + 1)
      const empty = text.charCodeAt(i) === (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)
      if (empty) i++
      else {
        open.push(c === OPEN_OBJECT ? IN_OBJECT : IN_ARRAY)
        if (c === OPEN_OBJECT) i = member(text, i)
        if (i < 0) return -i - 1
        continue
      }
    } else {
      i = scalar(text, i)
      if (i < 0) return -i - 1
    }
    // After a value: close what it ends, or go on to the next one.
    for (;;) {
      i = space(text, i)
      if (open.length === 0) return i === text.length ? -1 : i
      const inside = open[open.length - 1]
      const d = text.charCodeAt(i)
      if (d === COMMA) {
        i = space(text, i + 1)
        if (inside === IN_OBJECT) i = member(text, i)
        if (i < 0) return -i - 1
        break
      }
      if (d !== (inside === IN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) return i
      open.pop()
      i++
    }
  }
}

// Each reader takes the offset to read at and gives the offset after what it read, or, where the
// text breaks the grammar, -(offset + 1).

/** A member's name and colon: the offset of its value. */
function member(t: string, i: number): number {
  if (t.charCodeAt(i) !== QUOTE) return -i - 1
  i = string(t, i + 1)
  if (i < 0) return i
  i = space(t, i)
  if (t.charCodeAt(i) !== COLON) return -i - 1
  return space(t, i + 1)
}

/** A string, number, true, false or null. */
function scalar(t: string, i: number): number {
  const c = t.charCodeAt(i)
  if (c === QUOTE) return string(t, i + 1)
  if (c === MINUS || isDigit(c)) return number(t, i)
  if (t.startsWith('true', i)) return i + 4
  if (t.startsWith('false', i)) return i + 5
  if (t.startsWith('null', i)) return i + 4
  return -i - 1
}

/** A string's rest, after its opening quote. */
function string(t: string, i: number): number {
  for (; i < t.length; i++) {
    const c = t.charCodeAt(i)
    if (c === QUOTE) return i + 1
    if (c < SPACE) return -i - 1
    if (c !== BACKSLASH) continue
    const e = t.charCodeAt(++i)
    if (e === 0x75) {
      // \u and four hex digits
      for (let k = 1; k <= 4; k++) if (!isHex(t.charCodeAt(i + k))) return -(i + k) - 1
      i += 4
    } else if (!isEscape(e)) return -i - 1
  }
  return -i - 1
}

function number(t: string, i: number): number {
  if (t.charCodeAt(i) === MINUS) i++
  const first = t.charCodeAt(i)
  if (first === ZERO) i++
  else if (isDigit(first)) i = digits(t, i)
  else return -i - 1
  if (t.charCodeAt(i) === DOT) {
    if (!isDigit(t.charCodeAt(i + 1))) return -(i + 1) - 1
    i = digits(t, i + 1)
  }
  const e = t.charCodeAt(i)
  if (e === 0x65 || e === 0x45) {
    i++
    const sign = t.charCodeAt(i)
    if (sign === PLUS || sign === MINUS) i++
    if (!isDigit(t.charCodeAt(i))) return -i - 1
    i = digits(t, i)
  }
  return i
}

function digits(t: string, i: number): number {
  while (isDigit(t.charCodeAt(i))) i++
  return i
}

function space(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i)
    if (c !== SPACE && c !== TAB && c !== LF && c !== CR) return i
    i++
  }
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
}

/** `"`, `\`, `/`, b, f, n, r, t. */
function isEscape(c: number): boolean {
  return (
    c === QUOTE ||
    c === BACKSLASH ||
    c === 0x2f ||
    c === 0x62 ||
    c === 0x66 ||
    c === 0x6e ||
    c === 0x72 ||
    c === 0x74
  )
}
