/**
 * Tool names that look like others: the Unicode "skeleton" of a name (UTS #39, section 4) and,
 * among a tunnel's tools, which other name a tool's skeleton matches. `ѕеаrсһ` in Cyrillic
 * letters and the approved Latin `search` share the skeleton `search`, so a new tool of that name
 * is flagged "looks like search" wherever held tools are shown. The confusables data is Unicode's
 * `confusables.txt` as the `unhomoglyph` package carries it (one prototype per code point). Only
 * the flag depends on it: names are still stored, compared, pinned and approved exactly as sent.
 *
 * Work is bounded: a name is pinned only up to `MAX_PINNED_NAME_CHARS` (longer names are never
 * matched here), a skeleton costs one pass over the name, and matching a tunnel's tools is one
 * pass over their names through an index, not a comparison of every pair.
 */
import { createHash } from 'node:crypto'
import unhomoglyph from 'unhomoglyph'
import { MAX_PINNED_NAME_CHARS } from './pinnable-name.js'

/** Characters Unicode says to render as nothing (U+200B, U+00AD, bidi controls, tags, …). */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu

/**
 * The UTS #39 skeleton of `name`: NFD, default-ignorable characters dropped, each character
 * replaced by its prototype from `confusables.txt`, NFD again. Two names whose skeletons are
 * equal look alike. A skeleton is for comparing, never for showing (`m` becomes `rn`).
 */
export function nameSkeleton(name: string): string {
  return unhomoglyph(name.normalize('NFD').replace(IGNORABLE, '')).normalize('NFD')
}

/**
 * What skeletons are compared by: a digest of the skeleton, so that what is kept per name is
 * small whatever the name (a prototype can be 18 characters for one: U+FDFA). Null for a name
 * longer than a pin may be (such names are never pinned, so never shown for approval).
 */
export function skeletonKey(name: string): string | null {
  if (name.length > MAX_PINNED_NAME_CHARS) return null
  return createHash('sha256').update(nameSkeleton(name)).digest('base64url')
}

/**
 * The names of one tunnel's tools, indexed by skeleton: `looksLike` says which other name a name
 * looks like. Names given first are preferred as the answer (the caller puts approved ones first).
 */
export class LookalikeIndex {
  /** Skeleton key → at most two names with it (a name is matched against one other than itself). */
  readonly #bySkeleton = new Map<string, string[]>()
  /** Keys computed, per name: each name's skeleton is computed once. */
  readonly #keys = new Map<string, string | null>()

  constructor(names: Iterable<string> = []) {
    for (const name of names) this.add(name)
  }

  /** Index `name` (a name already indexed is left as it is). */
  add(name: string): void {
    if (this.#keys.has(name)) return
    const key = this.#keyOf(name)
    if (key === null) return
    const same = this.#bySkeleton.get(key)
    if (same === undefined) this.#bySkeleton.set(key, [name])
    else if (same.length < 2) same.push(name)
  }

  /** Another indexed name whose skeleton is that of `name`, or null. */
  looksLike(name: string): string | null {
    // A name not indexed is not remembered: only indexed names are kept.
    const key = this.#keys.has(name) ? this.#keyOf(name) : skeletonKey(name)
    if (key === null) return null
    return this.#bySkeleton.get(key)?.find((other) => other !== name) ?? null
  }

  #keyOf(name: string): string | null {
    const known = this.#keys.get(name)
    if (known !== undefined) return known
    const key = skeletonKey(name)
    this.#keys.set(name, key)
    return key
  }
}
