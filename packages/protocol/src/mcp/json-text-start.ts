/**
 * Text that cannot be JSON, told by its first character past JSON's whitespace, without parsing
 * it. `JSON.parse` refuses text by throwing, and V8's exception costs some thirty times the parse
 * of a short message: an SSE stream of one-character events that are not JSON made the edge spend
 * that on every event, and an inspector reading a million empty events spent 38 s of CPU.
 */

/** Why `text` cannot be JSON, judged by how it starts, or null when it may be. */
export function jsonStartProblem(text: string): string | null {
  let i = 0
  while (i < text.length && isJsonWhitespace(text.charCodeAt(i))) i++
  if (i === text.length) return 'it is empty'
  const c = text.charCodeAt(i)
  if (startsValue(c)) return null
  return `it starts with ${shown(text.codePointAt(i)!)}`
}

function isJsonWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d
}

/** `{`, `[`, `"`, `-`, a digit, or the first letter of true, false or null. */
function startsValue(c: number): boolean {
  return (
    c === 0x7b ||
    c === 0x5b ||
    c === 0x22 ||
    c === 0x2d ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x74 ||
    c === 0x66 ||
    c === 0x6e
  )
}

/** Printable ASCII as itself, quoted; anything else by its code (no control or bidi reaches a log). */
function shown(codePoint: number): string {
  if (codePoint > 0x20 && codePoint < 0x7f) return JSON.stringify(String.fromCharCode(codePoint))
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`
}
