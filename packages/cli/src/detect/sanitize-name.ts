/**
 * Upstream names for detected servers (docs/detect.md): lowercased, characters outside `[a-z0-9_-]`
 * replaced with `-`, runs of `_` collapsed, `srv-` prefixed unless the name starts with a letter,
 * truncated to 32 characters, a final `_` made `-`; so every result matches `^[a-z][a-z0-9_-]{0,31}$`, the rule of
 * upstream names (`UPSTREAM_NAME_PATTERN`).
 */

/** Longest upstream name (`UPSTREAM_NAME_PATTERN`). */
export const MAX_NAME_LENGTH = 32

/**
 * The upstream name for a server called `name`. A character is a Unicode code point, after NFC
 * normalisation, so `é` typed either way becomes one `-` and an emoji is one `-`, not two.
 */
export function sanitizeName(name: string): string {
  const replaced = name
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^a-z0-9_-]/gu, '-')
    .replace(/__+/g, '_')
  const prefixed = /^[a-z]/.test(replaced) ? replaced : `srv-${replaced}`
  // A final `_` would make the name clash with its stem in prefixed tool names (`a___x` is
  // `_x` of `a` and `x` of `a_`; `ambiguousUpstreamNames`).
  return prefixed.slice(0, MAX_NAME_LENGTH).replace(/_$/, '-')
}

/**
 * Sanitised names for a list of servers, unique within the list: the first server keeps its name;
 * later ones that sanitise to the same name get `-2`, `-3`, … (cutting the name to stay within 32
 * characters) and skip any suffixed name another server already sanitises to.
 */
export function uniqueSanitizedNames(names: readonly string[]): string[] {
  const bases = names.map(sanitizeName)
  const taken = new Set(bases)
  const used = new Set<string>()
  // Where each base's search for a free suffix goes on: the suffixes before it are used or
  // taken for good, so thousands of servers that sanitise alike are named in linear time.
  const nextSuffix = new Map<string, number>()
  return bases.map((base) => {
    let name = base
    let n = nextSuffix.get(base) ?? 2
    while (used.has(name)) {
      const suffix = `-${n++}`
      const candidate = base.slice(0, MAX_NAME_LENGTH - suffix.length) + suffix
      if (!taken.has(candidate)) name = candidate
    }
    nextSuffix.set(base, n)
    used.add(name)
    return name
  })
}
