/**
 * Tool and prompt names in aggregator mode: `<upstream>__<item>`, the convention most MCP
 * aggregators share (MCPJungle, MetaMCP, mcp-local-tunnel, mcpproxy-go). Upstream names may
 * themselves contain `__`, so a name is split at the longest upstream name it starts with rather
 * than at its first separator.
 */

/** Between the upstream name and the item's own name. */
export const NAME_SEPARATOR = '__'

/** Longest name some agents accept for a tool (longer ones are warned about at start). */
export const AGENT_NAME_LIMIT = 64

/** The name agents see for `item` of upstream `upstream`. */
export function prefixName(upstream: string, item: string): string {
  return `${upstream}${NAME_SEPARATOR}${item}`
}

/**
 * Why upstream names `names` cannot serve together, or null. Two names clash when one's prefix
 * begins the other's: with "a" and "a__b", "a__b__x" is tool "b__x" of "a" and tool "x" of "a__b"
 * alike; with "a" and "a_", "a___x" is "_x" of "a" and "x" of "a_". Only one could be called.
 */
export function ambiguousUpstreamNames(names: readonly string[]): string | null {
  for (const a of names) {
    for (const b of names) {
      if (a !== b && (b + NAME_SEPARATOR).startsWith(a + NAME_SEPARATOR)) {
        const shown = prefixName(b, 'x')
        const ofA = shown.slice(a.length + NAME_SEPARATOR.length)
        return (
          `upstream names "${a}" and "${b}" are ambiguous: "${shown}" would be ` +
          `"${ofA}" of "${a}" and "x" of "${b}"; rename one`
        )
      }
    }
  }
  return null
}

/** The upstream and item a prefixed name stands for, or undefined when no upstream matches. */
export function splitPrefixedName(
  name: string,
  upstreams: readonly string[],
): { readonly upstream: string; readonly item: string } | undefined {
  let best: string | undefined
  for (const upstream of upstreams) {
    const prefix = upstream + NAME_SEPARATOR
    if (name.startsWith(prefix) && name.length > prefix.length) {
      if (best === undefined || upstream.length > best.length) best = upstream
    }
  }
  if (best === undefined) return undefined
  return { upstream: best, item: name.slice(best.length + NAME_SEPARATOR.length) }
}
