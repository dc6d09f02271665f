/**
 * Members of a listed tool that a reader matching names without case reads otherwise than the
 * edge does. Go's `encoding/json` (mcp-go, the Go SDK before 1.3.1) matches a struct's fields
 * without case (`ſ` as `s`, `K` as `k`), the last of two members winning: to it,
 * `{"name":"read_file","description":"Reads a file.","Description":"<poison>"}` describes
 * `read_file` with the poison, and `{"name":"read_file","Name":"wipe_disk"}` lists `wipe_disk`.
 * The edge reads the exact names. So the pin covers those members too: a member spelled as a
 * case variant of a pinned field (its value, under its own spelling), and the order of the
 * members that fold alike there and in the tool's struct-shaped fields (`annotations`,
 * `execution`, `inputSchema`, `outputSchema`, each icon), which decides which one such a reader
 * takes.
 */
import { foldMemberName } from '@burrow/protocol'

/** What a case-folding reader may read otherwise, or null when every name is read alike. */
export interface CaseVariants {
  /** Members spelled as a case variant of a pinned field, by their spelling. */
  readonly members: Readonly<Record<string, unknown>>
  /** Members folding alike, in the order listed (`path/name`): the last is the one read. */
  readonly order: readonly string[]
}

/**
 * The tool's members Go SDKs read into structs, whose own members such a reader also matches
 * without case: `inputSchema` and `outputSchema` too (`Type`, `Properties`, `Required`; found by
 * a review: `properties` and `Properties` swapped kept the pin).
 */
const STRUCT_FIELDS = ['annotations', 'execution', 'inputSchema', 'outputSchema'] as const

/** A character that can make a name fold to another (as `case-variants.ts` in the protocol). */
const MAY_FOLD = /[A-Z\u0080-\uffff]/

/** The case variants of `tool` against pinned field names `fields`, or null. */
export function caseVariantsOf(
  tool: Readonly<Record<string, unknown>>,
  fields: readonly string[],
): CaseVariants | null {
  const exact = new Set(fields)
  const pinned = new Set(fields.map(foldMemberName))
  const members: Record<string, unknown> = {}
  let any = false
  for (const key of Object.keys(tool)) {
    if (exact.has(key) || !MAY_FOLD.test(key) || !pinned.has(foldMemberName(key))) continue
    members[key] = tool[key]
    any = true
  }
  const order: string[] = []
  alike(tool, '', order)
  for (const field of STRUCT_FIELDS) alike(tool[field], `${field}/`, order)
  const icons = tool.icons
  if (Array.isArray(icons)) icons.forEach((icon, i) => alike(icon, `icons/${i}/`, order))
  return any || order.length > 0 ? { members, order } : null
}

/** Adds to `order` the members of `value` (an object) that fold alike, in the order listed. */
function alike(value: unknown, path: string, order: string[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return
  const keys = Object.keys(value)
  if (!keys.some((k) => MAY_FOLD.test(k))) return
  const groups = new Map<string, string[]>()
  for (const key of keys) {
    const folded = foldMemberName(key)
    const group = groups.get(folded)
    if (group === undefined) groups.set(folded, [key])
    else group.push(key)
  }
  for (const group of groups.values())
    if (group.length > 1) for (const key of group) order.push(`${path}${key}`)
}
