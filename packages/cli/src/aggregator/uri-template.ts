/**
 * Matching a resource URI against the URI templates upstreams list in `resources/templates/list`
 * (RFC 6570). Level 1 is matched as the RFC expands it: `{var}` stands for one value whose
 * reserved characters are percent-encoded, so it never spans `/`, `?` or `#`. Expressions with an
 * operator (`{+path}`, `{/segments}`, `{?query}`…, levels 2-4) match any run of characters, which
 * is lenient but enough to find the upstream that owns a URI.
 *
 * The URI is an agent's (up to the edge's 4 MiB body), so matching reads each of its characters
 * once, keeping the set of template positions reached (a Thompson automaton): time is linear in
 * the URI whatever the template. A regular expression (`^x://.*\/.*$` for `x://{+a}/{+b}`)
 * backtracked: an agent's `resources/read` of `x://a/a/…/a/\n/` took time quadratic in the URI's
 * length (16,000 segments: 0.4 s; a 4 MiB URI: hours), with the event loop of `burrow up`, and so
 * every agent's call, stopped meanwhile.
 */

const EXPRESSION = /\{([^}]*)\}/g

/** Any run of characters but line ends (an operator expression; as `.` read them before). */
const ANY = -1
/** A run of characters without `/`, `?` or `#` (a level-1 expression). */
const SEGMENT = -2

/** A compiled template. */
export interface UriTemplatePattern {
  /** True when `uri` is one of the URIs the template expands to. */
  test(uri: string): boolean
}

/** The matcher of the URIs `template` expands to. */
export function uriTemplatePattern(template: string): UriTemplatePattern {
  // A literal character's UTF-16 code unit, or ANY or SEGMENT.
  const tokens: number[] = []
  let last = 0
  for (const match of template.matchAll(EXPRESSION)) {
    pushLiteral(tokens, template.slice(last, match.index))
    const run = /^[+#./;?&]/.test(match[1] ?? '') ? ANY : SEGMENT
    // Two like runs in a row match what one matches. Unlike ones stay two: a level-1 run takes
    // line ends and an operator's takes `/`, `?` and `#`, so neither matches what both do.
    if (tokens.at(-1) !== run) tokens.push(run)
    last = match.index + match[0].length
  }
  pushLiteral(tokens, template.slice(last))
  return { test: (uri) => matches(tokens, uri) }
}

/** True when `uri` is one of the URIs `template` expands to. */
export function matchesUriTemplate(template: string, uri: string): boolean {
  return uriTemplatePattern(template).test(uri)
}

function pushLiteral(tokens: number[], text: string): void {
  for (let i = 0; i < text.length; i++) tokens.push(text.charCodeAt(i))
}

/** Whether `tokens` match the whole of `uri`, reading each character of it once. */
function matches(tokens: readonly number[], uri: string): boolean {
  const end = tokens.length
  // States are positions in `tokens` (`end`: all matched); each is listed once per step.
  const stamps = new Uint32Array(end + 1)
  let current = new Int32Array(end + 1)
  let next = new Int32Array(end + 1)
  let stamp = 1
  let nextCount = 0
  /** Add `state` to `next`, and the states it reaches without reading (past a run). */
  const add = (state: number): void => {
    for (let s = state; s <= end && stamps[s] !== stamp; s++) {
      stamps[s] = stamp
      next[nextCount++] = s
      if (s === end || tokens[s]! >= 0) return
    }
  }
  add(0)
  for (let i = 0; i < uri.length; i++) {
    ;[current, next] = [next, current]
    const count = nextCount
    nextCount = 0
    stamp++
    const c = uri.charCodeAt(i)
    for (let k = 0; k < count; k++) {
      const s = current[k]!
      if (s === end) continue
      const token = tokens[s]!
      if (token === c) add(s + 1)
      else if (
        token === ANY ? !lineEnd(c) : token === SEGMENT && c !== 0x2f && c !== 0x3f && c !== 0x23
      ) {
        add(s)
      }
    }
    if (nextCount === 0) return false
  }
  return stamps[end] === stamp
}

/** A line terminator (`\n`, `\r`, U+2028, U+2029). */
function lineEnd(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029
}
