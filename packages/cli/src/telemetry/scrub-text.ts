/**
 * Removes what a crash report must not carry from an error message or stack before it leaves
 * the machine: tunnel keys (`mtk_…`), bearer tokens, passwords in URLs, token-like query
 * parameters, the user's home directory, text an error quotes from its input (JSON.parse quotes
 * what it failed to parse, which may be MCP traffic), and terminal control characters.
 */

/** What replaces a secret. */
const REDACTED = '[redacted]'

/**
 * `text` with secrets, quoted input and the home directory (`home`, written `~`) removed. Keeps
 * newlines and tabs so stacks stay readable.
 */
export function scrubText(text: string, home: string | null): string {
  // Control characters go first: one inside a key or a password would end its match early and
  // leave the rest of it in the report.
  let out = text
    // eslint-disable-next-line no-control-regex
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    // eslint-disable-next-line no-control-regex
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '')
  if (home && home.length > 1) out = replaceHome(out, home)
  return (
    out
      .replace(/mtk_[A-Za-z0-9_-]+/g, `mtk_${REDACTED}`)
      .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`)
      // The scheme starts where a run of scheme characters does (not at every word in it, which
      // took quadratic time on text like `a.a.a.…`); the user part ends at the authority's last
      // `@`, as URL parsers read it, so a password holding `@` goes whole.
      .replace(/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^/\s?#]+@/gi, `$1${REDACTED}@`)
      // `token`, or a name ending in `_token`, `-Signature`… (refresh_token, client_secret,
      // X-Amz-Signature), in a query or a fragment (where OAuth puts an access token).
      .replace(
        /([?&;#](?:[a-z0-9_.-]*[_.-])?(?:token|key|apikey|secret|password|passwd|pwd|auth|signature|sig|credential|code)=)[^&\s#"']+/gi,
        `$1${REDACTED}`,
      )
      // JSON.parse quotes its input raw, quotes and newlines included, at most 21 characters of
      // it, after the token (`Unexpected token 'x', "…" is not valid JSON`, with `...` where it
      // cut the input short). Only there: from an earlier quote, the match would take what the
      // message says before it. Bounded, so a text full of quotes does not take quadratic time.
      // (`"undefined" is not valid JSON` quotes no input; the next line handles it.)
      .replace(
        /(?<=', )(?:\.\.\.)?"[\s\S]{0,64}?"(?:\.\.\.)? is not valid JSON/g,
        '"…" is not valid JSON',
      )
      .replace(/"[^"\n]*"/g, '"…"')
  )
}

/** Every spelling of `home` in `text` (either slash, any case on Windows paths) as `~`. */
function replaceHome(text: string, home: string): string {
  const trimmed = home.replace(/[\\/]+$/, '')
  const parts = trimmed.split(/[\\/]+/).map(escapeRegExp)
  const windows = /^[A-Za-z]:/.test(trimmed) || trimmed.includes('\\')
  // The home directory, then a separator or a non-name character, so /home/ann does not match
  // in /home/anna.
  const pattern = new RegExp(
    `${parts.join('[\\\\/]')}(?=[\\\\/]|$|[^A-Za-z0-9._-])`,
    windows ? 'gi' : 'g',
  )
  return text.replace(pattern, '~')
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
