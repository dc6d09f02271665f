/**
 * Which tools agents may see and call: allowed when the name matches an `allow` glob and no
 * `deny` glob. Names are the ones agents see (prefixed in aggregator mode). Globs have `*` (any
 * run of characters), `?` (one character), `[abc]`, `[a-z]`, `[^abc]`, `{a,b}` (nested too) and
 * `\` to quote; every other character, `/` and `.` included, is itself. The same test filters
 * `tools/list` and refuses `tools/call`, so the two never disagree.
 *
 * Globs are compiled to RE2 (`re2js`), never to a backtracking regular expression: an owner's
 * glob such as `*a*a*a*…b` would otherwise take exponential time on a name an agent sends, and
 * the edge's event loop is every tunnel's. Matching takes time linear in the name, paid from the
 * tunnel's scan budget (glob-budget.ts), and names longer than `MAX_MATCHED_NAME` are not matched
 * at all (see `ToolRules.allows` and the rate limits): MCP tool names are at most 128 characters.
 */
import { RE2JS } from 're2js'
import { DecidedNames } from './decided-names.js'
import { matchWithin, programOf } from './glob-budget.js'
import { ScanBudget } from './scan-budget.js'

/** A compiled glob. */
export type Glob = RE2JS

/** The longest name (tool or method) matched against globs. */
export const MAX_MATCHED_NAME = 1024

/** Compile `glob` for names (see the file header). */
export function compileGlob(glob: string): Glob {
  try {
    return RE2JS.compile(globToRe2(glob), RE2JS.DOTALL)
  } catch {
    // A class RE2 does not take (an unknown [:name:]): the glob stands for itself.
    return RE2JS.compile(RE2JS.quote(glob), RE2JS.DOTALL)
  }
}

/**
 * Why an owner's new `glob` is refused, or null. Found by a hostile review: globs that another
 * dialect reads differently were taken as literal text and denied nothing (extglobs such as
 * `@(delete|drop)_*`, a reversed range `[z-a]`), or the opposite of what was meant (`[!s]*`,
 * "not s" elsewhere, a class of `!` and `s` here). Stored policies are read as they are.
 */
export function globProblem(glob: string): string | null {
  if (/[@!+*?]\(/.test(glob)) {
    return `"${glob}" uses extended glob syntax such as @(a|b) or !(a), which policies do not have; write {a,b}`
  }
  if (glob.startsWith('!')) {
    return `"${glob}" starts with !, which here is the character itself, not "all but"; list what to deny instead`
  }
  // `[!` outside a quote (`\[` is a quoted bracket; `\\[` a quoted backslash, then a class).
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === '\\') i++
    else if (glob.startsWith('[!', i)) return `"${glob}" has [!…]; write [^…] for "none of"`
  }
  try {
    RE2JS.compile(globToRe2(glob), RE2JS.DOTALL)
    return null
  } catch (error) {
    return `"${glob}" is not a valid glob (${(error as Error).message})`
  }
}

/** True when `name` matches the compiled `glob` whole. */
export function matchesGlob(glob: Glob, name: string): boolean {
  return glob.matches(name)
}

type Token =
  | { readonly kind: 're'; readonly re: string }
  | { readonly kind: '{' | '}' | ','; readonly text: string }

/** The RE2 syntax of `glob`, to be matched whole. */
export function globToRe2(glob: string): string {
  const tokens: Token[] = []
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === '\\' && i + 1 < glob.length) {
      tokens.push({ kind: 're', re: RE2JS.quote(glob[++i]!) })
    } else if (c === '*') {
      while (glob[i + 1] === '*') i++
      tokens.push({ kind: 're', re: '.*' })
    } else if (c === '?') {
      tokens.push({ kind: 're', re: '.' })
    } else if (c === '[' && bracketEnd(glob, i) !== -1) {
      const end = bracketEnd(glob, i)
      tokens.push({ kind: 're', re: bracketClass(glob.slice(i + 1, end)) })
      i = end
    } else if (c === '{' || c === '}' || c === ',') {
      tokens.push({ kind: c, text: c })
    } else {
      tokens.push({ kind: 're', re: RE2JS.quote(c) })
    }
  }
  // A `{` is a group when its `}` follows and a comma stands between them at its own depth;
  // any other brace or comma is itself.
  const group = new Map<number, number>()
  const commas = new Set<number>()
  const open: { at: number; commas: number[] }[] = []
  tokens.forEach((t, i) => {
    if (t.kind === '{') open.push({ at: i, commas: [] })
    else if (t.kind === ',') open[open.length - 1]?.commas.push(i)
    else if (t.kind === '}') {
      const o = open.pop()
      if (o !== undefined && o.commas.length > 0) {
        group.set(o.at, i)
        for (const c of o.commas) commas.add(c)
      }
    }
  })
  const closes = new Set(group.values())
  return tokens
    .map((t, i) => {
      if (t.kind === 're') return t.re
      if (group.has(i)) return '(?:'
      if (closes.has(i)) return ')'
      if (commas.has(i)) return '|'
      return RE2JS.quote(t.text)
    })
    .join('')
}

/** Where the `[` at `start` closes, or -1 when it does not (it is then itself). */
function bracketEnd(glob: string, start: number): number {
  let i = start + 1
  if (glob[i] === '^') i++
  if (glob[i] === ']') i++
  for (; i < glob.length; i++) {
    if (glob[i] === '\\') i++
    else if (glob.startsWith('[:', i)) {
      const close = glob.indexOf(':]', i + 2)
      if (close !== -1) i = close + 1
    } else if (glob[i] === ']') return i
  }
  return -1
}

/** An RE2 class for the inside of a glob's `[…]`; `^` negates (`!` is itself, as before). */
function bracketClass(inner: string): string {
  let out = '['
  let i = 0
  if (inner[0] === '^') {
    out += '^'
    i = 1
  }
  for (; i < inner.length; i++) {
    const c = inner[i]!
    if (c === '\\' && i + 1 < inner.length) {
      out += classChar(inner[++i]!)
    } else if (inner.startsWith('[:', i) && inner.indexOf(':]', i + 2) !== -1) {
      const close = inner.indexOf(':]', i + 2)
      out += inner.slice(i, close + 2)
      i = close + 1
    } else if (c === '-' && i > 0 && i < inner.length - 1) {
      out += '-'
    } else {
      out += classChar(c)
    }
  }
  return `${out}]`
}

/** `c` as a member of an RE2 class: ASCII punctuation quoted, anything else as it is. */
function classChar(c: string): string {
  return /^[!-/:-@[-`{-~]$/.test(c) ? `\\${c}` : c
}

/** The compiled allow and deny lists of a policy. */
export class ToolRules {
  readonly #allow: readonly Glob[]
  readonly #deny: readonly Glob[]
  readonly #allowProgram: number
  readonly #denyProgram: number
  readonly #budget: ScanBudget
  /** Names matched before, and whether they are allowed (decided-names.ts). */
  readonly #decided = new DecidedNames<boolean>()
  /** True when every tool is allowed (`allow: ["*"]`, no `deny`): nothing to filter. */
  readonly allowsAll: boolean

  /** `budget`: what matching may cost (the tunnel's scan budget, glob-budget.ts). */
  constructor(
    tools: { readonly allow: readonly string[]; readonly deny: readonly string[] },
    budget: ScanBudget = new ScanBudget(),
  ) {
    this.#allow = tools.allow.map(compileGlob)
    this.#deny = tools.deny.map(compileGlob)
    this.#allowProgram = programOf(this.#allow)
    this.#denyProgram = programOf(this.#deny)
    this.#budget = budget
    this.allowsAll = tools.deny.length === 0 && tools.allow.includes('*')
  }

  /**
   * Whether agents may see and call the tool `name`. Under a policy that restricts tools, a name
   * longer than `MAX_MATCHED_NAME` is not allowed (no real tool has one), nor one the tunnel's
   * scan budget cannot pay to match.
   */
  allows(name: string): boolean {
    if (this.allowsAll) return true
    if (name.length > MAX_MATCHED_NAME) return false
    const decided = this.#decided.get(name)
    if (decided !== undefined) return decided
    const budget = this.#budget
    const allowed = matchWithin(budget, this.#allow, name, matchesGlob, this.#allowProgram)
    if (allowed === null) return false
    const denied = allowed && matchWithin(budget, this.#deny, name, matchesGlob, this.#denyProgram)
    if (denied === null) return false
    // Kept only when the budget paid for every match: a refusal for want of it is not a decision.
    this.#decided.set(name, allowed && !denied)
    return allowed && !denied
  }
}
