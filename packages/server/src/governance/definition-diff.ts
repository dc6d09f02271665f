/**
 * A field-by-field diff of two tool definitions (canonical JSON), for the Tools tab and the API:
 * every path whose value differs, with the value before and after (`description`,
 * `inputSchema.properties.path.type`, `inputSchema.required[1]`). Bounded: at most 200 entries,
 * values cut at 2,000 characters, paths at 1,000 (a key of 250,000 characters shared by 200
 * changed fields made 50 M characters of paths, which the Tools tab then scanned for hidden
 * characters and scripts for over a minute).
 */

/** One difference. `before`/`after` are JSON text, or null when the path is absent there. */
export interface FieldChange {
  readonly path: string
  readonly before: string | null
  readonly after: string | null
}

const MAX_CHANGES = 200
const MAX_VALUE_CHARS = 2000
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
  const x = show(a)
  const y = show(b)
  if (x !== y) out.push({ path: cutPath(path) || '(definition)', before: x, after: y })
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

function show(v: unknown): string | null {
  if (v === undefined) return null
  const text = JSON.stringify(v) ?? 'null'
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text
}
