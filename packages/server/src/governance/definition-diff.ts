/**
 * A field-by-field diff of two tool definitions (canonical JSON), for the Tools tab and the API:
 * every path whose value differs, with the value before and after (`description`,
 * `inputSchema.properties.path.type`, `inputSchema.required[1]`). Bounded: at most 200 entries,
 * values shown as 2,000 characters (from a little before where they first differ, when they
 * agree on more), paths cut at 1,000 (a key of 250,000 characters shared by 200 changed fields
 * made 50 M characters of paths, which the Tools tab then scanned for hidden characters and
 * scripts for over a minute). Values are compared whole.
 */

/** One difference. `before`/`after` are JSON text, or null when the path is absent there. */
export interface FieldChange {
  readonly path: string
  readonly before: string | null
  readonly after: string | null
}

const MAX_CHANGES = 200
const MAX_VALUE_CHARS = 2000
/** Characters shown before the first difference of values that agree on more than is shown. */
const CONTEXT_CHARS = 200
const MAX_PATH_CHARS = 1000

/** The differences between two definitions given as JSON text. */
export function diffDefinitions(before: string, after: string): FieldChange[] {
  const out: FieldChange[] = []
  walk(parse(before), parse(after), '', out, 0)
  return out
}

function walk(a: unknown, b: unknown, path: string, out: FieldChange[], depth: number): void {
  if (out.length >= MAX_CHANGES) return
  if (isObject(a) && isObject(b) && depth < 32) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
    for (const k of keys) walk(a[k], b[k], path === '' ? k : `${path}.${k}`, out, depth + 1)
    return
  }
  if (Array.isArray(a) && Array.isArray(b) && depth < 32) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      walk(a[i], b[i], `${path}[${i}]`, out, depth + 1)
    }
    return
  }
  // Compared whole, then cut for showing: cut first, a description that changed past its first
  // 2,000 characters showed no change (a hostile review).
  const x = json(a)
  const y = json(b)
  if (x === y) return
  const from = x !== null && y !== null ? shownFrom(x, y) : 0
  out.push({ path: cutPath(path) || '(definition)', before: show(x, from), after: show(y, from) })
}

/** `path`, cut at 1,000 characters (not inside a surrogate pair) and marked `…` when cut. */
function cutPath(path: string): string {
  if (path.length <= MAX_PATH_CHARS) return path
  const end = /[\uD800-\uDBFF]/.test(path[MAX_PATH_CHARS - 1] ?? '')
    ? MAX_PATH_CHARS - 1
    : MAX_PATH_CHARS
  return `${path.slice(0, end)}…`
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function json(v: unknown): string | null {
  return v === undefined ? null : (JSON.stringify(v) ?? 'null')
}

/**
 * Where two differing values are shown from: their start, unless they agree on more than is
 * shown of them; then a little before where they first differ (not inside a surrogate pair).
 */
function shownFrom(x: string, y: string): number {
  let i = 0
  while (i < x.length && i < y.length && x.charCodeAt(i) === y.charCodeAt(i)) i++
  if (i < MAX_VALUE_CHARS - CONTEXT_CHARS) return 0
  const from = i - CONTEXT_CHARS
  return isLowSurrogate(x.charCodeAt(from)) ? from - 1 : from
}

/** `text` from `from`, at most 2,000 characters (not ending inside a pair), marked `…` where cut. */
function show(text: string | null, from: number): string | null {
  if (text === null) return null
  let end = Math.min(text.length, from + MAX_VALUE_CHARS)
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--
  return `${from > 0 ? '…' : ''}${text.slice(from, end)}${end < text.length ? '…' : ''}`
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}
