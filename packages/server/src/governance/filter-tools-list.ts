/**
 * Removes the tools agents may not see from a `tools/list` answer (one JSON-RPC response object),
 * leaving everything else of it as it was: other result fields, `nextCursor`, `_meta`. A tool
 * named '' is always removed, and so is one whose name a reader matching names without case reads
 * otherwise (`"Name"` beside `name`) when that name is not visible.
 */
import { foldMemberName } from '@burrow/protocol'

/**
 * The answer without the tools `visible` refuses and those named '', and the names removed; the
 * input is not changed.
 */
export function filterToolsList(
  response: Readonly<Record<string, unknown>>,
  visible: (name: string) => boolean,
): { readonly response: Record<string, unknown>; readonly removed: readonly string[] } {
  const result = response.result
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    return { response: { ...response }, removed: [] }
  }
  const tools = (result as { tools?: unknown }).tools
  if (!Array.isArray(tools)) return { response: { ...response }, removed: [] }
  const removed: string[] = []
  const kept = tools.filter((tool: unknown) => {
    const name = (tool as { name?: unknown } | null)?.name
    // Entries without a string name are not guessed at (an SDK refuses such a list whole); a
    // tool named '' is valid to the SDKs but no call can be checked against it: left out, or its
    // description would reach the model past every pin and policy (a hostile review).
    // Names read without case (`"Name"`) are judged too: Go's encoding/json reads the last.
    const also = foldedNames(tool)
    if (typeof name !== 'string' && also.length === 0) return true
    if (typeof name === 'string' && name !== '' && visible(name) && also.every(visibleAs(visible)))
      return true
    removed.push(typeof name === 'string' ? name : also[0]!)
    return false
  })
  return { response: { ...response, result: { ...result, tools: kept } }, removed }
}

/** Whether a name read without case is one `visible` allows (never ''). */
function visibleAs(visible: (name: string) => boolean): (name: string) => boolean {
  return (name) => name !== '' && visible(name)
}

/**
 * The values of `tool`'s members other than `name` whose names fold to it (`"Name"`, `"NAME"`):
 * a reader matching names without case takes the last as the tool's name. Not a string: ''.
 */
function foldedNames(tool: unknown): string[] {
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) return []
  const out: string[] = []
  for (const [key, value] of Object.entries(tool))
    if (key !== 'name' && foldMemberName(key) === 'name')
      out.push(typeof value === 'string' ? value : '')
  return out
}

/**
 * The answer with one tool per name, the first: a server that lists a name twice could show
 * agents a second definition beside the one that was pinned. `dropped` counts the later copies.
 */
export function firstOfEachName(response: Readonly<Record<string, unknown>>): {
  readonly response: Record<string, unknown>
  readonly dropped: number
} {
  const result = response.result as { tools?: unknown } | null | undefined
  const tools = result?.tools
  if (!Array.isArray(tools)) return { response: { ...response }, dropped: 0 }
  const names = new Set<string>()
  const kept = tools.filter((tool: unknown) => {
    const name = (tool as { name?: unknown } | null)?.name
    if (typeof name !== 'string') return true
    if (names.has(name)) return false
    names.add(name)
    return true
  })
  if (kept.length === tools.length) return { response: { ...response }, dropped: 0 }
  return {
    response: { ...response, result: { ...result, tools: kept } },
    dropped: tools.length - kept.length,
  }
}
