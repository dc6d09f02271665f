/**
 * JSON with comments and trailing commas (JSONC), as VS Code and Cursor accept in their settings.
 * Comments and trailing commas are blanked out in place, so JSON.parse's error positions still
 * point into the original text and can be reported as line and column.
 */

/** Parse JSONC text. A text of only whitespace and comments is an empty object. Throws SyntaxError. */
export function parseJsonc(text: string): unknown {
  // Most files are plain JSON, which reads the same as JSONC: parsed at once, unscanned.
  try {
    return JSON.parse(text) as unknown
  } catch {
    // comments, trailing commas, a byte order mark, or an error to report below
  }
  const plain = blankTrailingCommas(blankComments(text.replace(/^\uFEFF/, '')))
  if (plain.trim() === '') return {}
  try {
    return JSON.parse(plain) as unknown
  } catch (err) {
    throw new SyntaxError(withLineColumn((err as Error).message, plain), { cause: err })
  }
}

/**
 * A copy of `text` with some ranges blanked, built from slices of it (a character at a time
 * made an array of millions of strings for a large file).
 */
class Blanked {
  readonly #pieces: string[] = []
  #copied = 0
  readonly text: string
  constructor(text: string) {
    this.text = text
  }

  /** Blank `text[from, to)`, keeping its line breaks. */
  blank(from: number, to: number): void {
    this.#pieces.push(this.text.slice(this.#copied, from))
    this.#pieces.push(this.text.slice(from, to).replace(/[^\n\r]/g, ' '))
    this.#copied = to
  }

  toString(): string {
    if (this.#copied === 0) return this.text
    return this.#pieces.join('') + this.text.slice(this.#copied)
  }
}

/** Replace `// …` and `/* … *\/` outside strings by spaces, keeping line breaks. */
function blankComments(text: string): string {
  const out = new Blanked(text)
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (c === '"') {
      i = endOfString(text, i)
    } else if (c === '/' && text[i + 1] === '/') {
      const start = i
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++
      out.blank(start, i)
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      if (end === -1) return out.toString() // unterminated: JSON.parse reports the stray "/"
      out.blank(i, end + 2)
      i = end + 2
    } else {
      i++
    }
  }
  return out.toString()
}

/** Replace a comma followed (after whitespace) by `}` or `]` with a space. */
function blankTrailingCommas(text: string): string {
  const out = new Blanked(text)
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (c === '"') {
      i = endOfString(text, i)
      continue
    }
    if (c === ',') {
      let j = i + 1
      while (j < text.length && /\s/.test(text[j]!)) j++
      if (text[j] === '}' || text[j] === ']') out.blank(i, i + 1)
    }
    i++
  }
  return out.toString()
}

/** Index just past the string literal opening at `start`. */
function endOfString(text: string, start: number): number {
  let i = start + 1
  while (i < text.length) {
    if (text[i] === '\\') i += 2
    else if (text[i] === '"') return i + 1
    else if (text[i] === '\n')
      return i // JSON.parse reports the unterminated string
    else i++
  }
  return i
}

/** Turn V8's "at position N" into "at line L column C", which an editor can jump to. */
function withLineColumn(message: string, text: string): string {
  const m = /at position (\d+)(?: \(line \d+ column \d+\))?/.exec(message)
  if (!m) return message
  const before = text.slice(0, Number(m[1]))
  const line = before.split('\n').length
  const column = before.length - before.lastIndexOf('\n')
  return message.replace(m[0], `at line ${line} column ${column}`)
}
