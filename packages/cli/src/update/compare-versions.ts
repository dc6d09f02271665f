/**
 * Semantic version precedence (semver.org §11), for deciding whether the service announces a
 * newer `burrow` than the running one: numbers compare numerically, a pre-release sorts before
 * its release, and build metadata is ignored.
 */

const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/

/** True when `version` is `MAJOR.MINOR.PATCH[-PRE][+BUILD]` (a leading `v` is allowed). */
export function isSemver(version: string): boolean {
  return SEMVER.test(version)
}

/**
 * Negative when `a` precedes `b`, positive when it follows, 0 when they are equal in precedence;
 * null when either is not a semantic version.
 */
export function compareVersions(a: string, b: string): number | null {
  const x = SEMVER.exec(a)
  const y = SEMVER.exec(b)
  if (!x || !y) return null
  for (let i = 1; i <= 3; i++) {
    const diff = Number(x[i]) - Number(y[i])
    if (diff !== 0) return Math.sign(diff)
  }
  return comparePrerelease(x[4], y[4])
}

/** True when `candidate` is a semantic version that follows `current`. */
export function isNewerVersion(candidate: string, current: string): boolean {
  return (compareVersions(candidate, current) ?? 0) > 0
}

function comparePrerelease(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1
  const left = a.split('.')
  const right = b.split('.')
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const l = left[i]
    const r = right[i]
    if (l === undefined) return -1
    if (r === undefined) return 1
    const ln = /^\d+$/.test(l)
    const rn = /^\d+$/.test(r)
    if (ln && rn) {
      const diff = Number(l) - Number(r)
      if (diff !== 0) return Math.sign(diff)
    } else if (ln !== rn) {
      return ln ? -1 : 1
    } else if (l !== r) {
      return l < r ? -1 : 1
    }
  }
  return 0
}
