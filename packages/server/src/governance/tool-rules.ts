/**
 * Which tools agents may see and call: allowed when the name matches an `allow` glob and no
 * `deny` glob. Names are the ones agents see (prefixed in aggregator mode). Globs are
 * picomatch's (`*`, `?`, `[abc]`, `{a,b}`); a `/` in a tool name is an ordinary character.
 * The same test filters `tools/list` and refuses `tools/call`, so the two never disagree.
 */
import picomatch from 'picomatch'

/** Stands in for `/` while matching: tool names are not paths. */
const SLASH = '\u2215'

/** Compile `glob` for names (see the file header). */
export function compileGlob(glob: string): RegExp {
  return picomatch.makeRe(glob.replaceAll('/', SLASH), { strictBrackets: true, dot: true })
}

/** True when `name` matches the compiled `glob`. */
export function matchesGlob(glob: RegExp, name: string): boolean {
  return glob.test(name.replaceAll('/', SLASH))
}

/** The compiled allow and deny lists of a policy. */
export class ToolRules {
  readonly #allow: readonly RegExp[]
  readonly #deny: readonly RegExp[]
  /** True when every tool is allowed (`allow: ["*"]`, no `deny`): nothing to filter. */
  readonly allowsAll: boolean

  constructor(tools: { readonly allow: readonly string[]; readonly deny: readonly string[] }) {
    this.#allow = tools.allow.map(compileGlob)
    this.#deny = tools.deny.map(compileGlob)
    this.allowsAll = tools.deny.length === 0 && tools.allow.includes('*')
  }

  /** Whether agents may see and call the tool `name`. */
  allows(name: string): boolean {
    if (this.allowsAll) return true
    const n = name.replaceAll('/', SLASH)
    return this.#allow.some((g) => g.test(n)) && !this.#deny.some((g) => g.test(n))
  }
}
