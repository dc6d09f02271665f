/**
 * Removes the tools agents may not see from a `tools/list` answer (one JSON-RPC response object),
 * leaving everything else of it as it was: other result fields, `nextCursor`, `_meta`.
 */

/** The answer without the tools `visible` refuses, and their names; the input is not changed. */
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
    if (typeof name !== 'string' || visible(name)) return true
    removed.push(name)
    return false
  })
  return { response: { ...response, result: { ...result, tools: kept } }, removed }
}
