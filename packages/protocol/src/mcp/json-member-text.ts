/**
 * The raw text of one member of a JSON object, as it appears in the source: for what `JSON.parse`
 * loses (the digits of a number beyond 2^53). A scanner over text `JSON.parse` has accepted; it
 * walks without recursion, so its depth is whatever the text's is.
 */

/**
 * The text of the value of `key` in the object `text` holds, or in element `element` of the array
 * it holds; the last such member when the key repeats (as `JSON.parse` keeps the last). Null when
 * there is no such object or member.
 */
export function memberText(text: string, element: number | null, key: string): string | null {
  const s = new Scanner(text)
  if (element !== null) {
    if (!s.take('[')) return null
    for (let k = 0; k < element; k++) {
      if (!s.skipValue() || !s.take(',')) return null
    }
  }
  const last = objectSpans(s, key)?.at(-1)
  return last === undefined ? null : text.slice(last[0], last[1])
}

/**
 * Where the values of `key` lie in `text`: for the object it holds, or for each element of the
 * array it holds (an element that is not an object has none), the `[start, end)` of every such
 * member's value, all of them when the key repeats. For rewriting one member in place, so that
 * the rest of the text, numbers past 2^53 included, stays as sent. Null for text that is neither
 * an object nor an array, or that `JSON.parse` would not accept.
 */
export function memberSpans(text: string, key: string): Array<Array<[number, number]>> | null {
  const s = new Scanner(text)
  s.space()
  if (!s.take('[')) {
    const spans = objectSpans(s, key)
    return spans === null ? null : [spans]
  }
  const elements: Array<Array<[number, number]>> = []
  if (s.take(']')) return elements
  for (;;) {
    s.space()
    if (text[s.at] === '{') {
      const spans = objectSpans(s, key)
      if (spans === null) return null
      elements.push(spans)
    } else {
      if (!s.skipValue()) return null
      elements.push([])
    }
    if (!s.take(',')) return s.take(']') ? elements : null
  }
}

/** The spans of `key`'s values in the object that starts here; past its `}` after. */
function objectSpans(s: Scanner, key: string): Array<[number, number]> | null {
  if (!s.take('{')) return null
  const spans: Array<[number, number]> = []
  if (s.take('}')) return spans
  for (;;) {
    const name = s.readKey()
    if (name === null || !s.take(':')) return null
    s.space()
    const start = s.at
    if (!s.skipValue()) return null
    if (name === key) spans.push([start, s.at])
    if (!s.take(',')) return s.take('}') ? spans : null
  }
}

class Scanner {
  at = 0
  readonly text: string

  constructor(text: string) {
    this.text = text
  }

  /** Skip white space, then `c` if it is next. */
  take(c: string): boolean {
    this.space()
    if (this.text[this.at] !== c) return false
    this.at++
    return true
  }

  space(): void {
    const t = this.text
    while (
      this.at < t.length &&
      (t[this.at] === ' ' || t[this.at] === '\n' || t[this.at] === '\r' || t[this.at] === '\t')
    )
      this.at++
  }

  /** A member's name, decoded. */
  readKey(): string | null {
    this.space()
    const start = this.at
    if (!this.skipString()) return null
    return JSON.parse(this.text.slice(start, this.at)) as string
  }

  /** Skip the string that starts here. */
  skipString(): boolean {
    const t = this.text
    if (t[this.at] !== '"') return false
    for (let i = this.at + 1; i < t.length; i++) {
      if (t[i] === '\\') i++
      else if (t[i] === '"') {
        this.at = i + 1
        return true
      }
    }
    return false
  }

  /** Skip the value that starts here (after white space). */
  skipValue(): boolean {
    this.space()
    const t = this.text
    const c = t[this.at]
    if (c === '"') return this.skipString()
    if (c === '{' || c === '[') {
      let depth = 0
      while (this.at < t.length) {
        const d = t[this.at]
        if (d === '"') {
          if (!this.skipString()) return false
          continue
        }
        if (d === '{' || d === '[') depth++
        else if (d === '}' || d === ']') depth--
        this.at++
        if (depth === 0) return true
      }
      return false
    }
    const start = this.at
    while (this.at < t.length && !',]} \n\r\t'.includes(t[this.at]!)) this.at++
    return this.at > start
  }
}
