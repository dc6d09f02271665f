/**
 * The built-in secret detectors redaction uses when `detect_secrets` is on: well-known shapes of
 * cloud and API keys, tokens and private keys, each named for its mask (`[REDACTED:github_token]`).
 * They are ours, not users': every one begins with a literal (a prefix such as `ghp_` or
 * `AKIA`) and is otherwise made of bounded character classes, so V8's own engine runs them in
 * linear time, and a string without any of the literals is not scanned at all; PEM private keys
 * are found with plain string searches. (Users' patterns
 * run on RE2: see redactor.ts.)
 */

/** A detector: the mask's name, the literals a match must contain, and its pattern. */
export interface SecretDetector {
  readonly name: string
  /** Substrings one of which every match contains (cheap to look for first). */
  readonly literals: readonly string[]
  readonly pattern: RegExp
}

/**
 * The detectors by regular expression, most specific first (the first that matches at a position
 * wins). PEM private keys come before them all, found by `privateKeys`.
 */
export const SECRET_DETECTORS: readonly SecretDetector[] = [
  {
    name: 'aws_access_key',
    literals: ['AKIA', 'ASIA'],
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  },
  {
    name: 'github_token',
    literals: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    pattern: /(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})/g,
  },
  {
    name: 'stripe_key',
    literals: ['_live_', '_test_'],
    pattern: /(?<![A-Za-z0-9])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255}/g,
  },
  {
    name: 'slack_token',
    literals: ['xox'],
    pattern: /(?<![A-Za-z0-9])xox[abprs]-[A-Za-z0-9-]{10,255}/g,
  },
  { name: 'google_api_key', literals: ['AIza'], pattern: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}/g },
  {
    name: 'burrow_key',
    literals: ['mtk_', 'btk_', 'atk_'],
    pattern: /(?<![A-Za-z0-9])(?:mtk|btk|atk)_[A-Za-z0-9_-]{16,255}/g,
  },
  {
    name: 'api_key',
    literals: ['sk-'],
    pattern: /(?<![A-Za-z0-9])sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,255}/g,
  },
  {
    name: 'bearer_token',
    literals: ['earer', 'EARER'],
    // No upper bound: a token longer than one (a JWT carrying many claims) had its tail kept
    // (found by a hostile review); the run is read once, from each `Bearer`.
    pattern: /(?<![A-Za-z0-9])[Bb][Ee][Aa][Rr][Ee][Rr][ \t]{1,8}[A-Za-z0-9._~+/=-]{16,}/g,
  },
]

const BEGIN = '-----BEGIN '
const END = '-----END '
const KEY_LINE = 'PRIVATE KEY-----'

/**
 * PEM private keys, `-----BEGIN … PRIVATE KEY-----` to the next `-----END … PRIVATE KEY-----`,
 * found with string searches that each move forward (linear in the text, however it is built).
 */
function privateKeys(text: string): [number, number, string][] {
  const found: [number, number, string][] = []
  let from = 0
  // The first header line at or after the BEGIN being looked at: searched again only once a
  // BEGIN lies past it, so no stretch of text is searched twice for it.
  let header = -1
  for (;;) {
    const begin = text.indexOf(BEGIN, from)
    if (begin === -1) return found
    if (header < begin) header = text.indexOf(KEY_LINE, begin)
    if (header === -1) return found
    // The header names a private key only if nothing but a type sits between BEGIN and it.
    if (
      header - begin - BEGIN.length > 40 ||
      !/^[A-Z ]*$/.test(text.slice(begin + BEGIN.length, header))
    ) {
      from = begin + BEGIN.length
      continue
    }
    // A key with no end (cut, or sent so) is masked to the end of the text.
    const end = text.indexOf(END, header)
    const close = end === -1 ? -1 : text.indexOf(KEY_LINE, end)
    if (close === -1) {
      found.push([begin, text.length, 'private_key'])
      return found
    }
    found.push([begin, close + KEY_LINE.length, 'private_key'])
    from = close + KEY_LINE.length
  }
}

/**
 * A JWT's last two parts: `.eyJ<payload>.<signature>`, of any length: each part is a run that
 * ends at a dot or at the end of the run, so every character is read a bounded number of times.
 * Parts were capped at 4,096 characters, and a token with a longer payload (many `groups`
 * claims) or header (an `x5c` chain) was not found at all (found by a hostile review).
 */
const JWT_TAIL = /\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g

/** Whether `c` may be in a JWT part (base64url). */
function isPart(c: number): boolean {
  return (
    (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45
  )
}

/**
 * JWTs, `eyJ<header>.eyJ<payload>.<signature>` starting at a word boundary. Found from their
 * last two parts, then the header backwards from its dot: a regular expression that starts at
 * every `eyJ` reads up to 4 KiB from each (`-eyJ` repeated took 6.8 s on 1 MiB), while every
 * part read here ends at a dot, so no character is read more than a few times.
 */
function jwts(text: string): [number, number, string][] {
  const found: [number, number, string][] = []
  let floor = 0
  JWT_TAIL.lastIndex = 0
  for (let m = JWT_TAIL.exec(text); m !== null; m = JWT_TAIL.exec(text)) {
    const dot = m.index
    let from = dot
    while (from > floor && isPart(text.charCodeAt(from - 1))) from--
    let start = -1
    for (let s = from; s <= dot - 11; s++) {
      if (text.startsWith('eyJ', s) && (s === 0 || !isWord(text.charCodeAt(s - 1)))) {
        start = s
        break
      }
    }
    if (start === -1) {
      JWT_TAIL.lastIndex = dot + 1
      continue
    }
    found.push([start, dot + m[0].length, 'jwt'])
    floor = dot + m[0].length
  }
  return found
}

function isWord(c: number): boolean {
  return isPart(c) && c !== 45
}

/** The shortest text any detector matches: shorter strings are not scanned. */
export const MIN_SECRET_CHARS = 16

/** Where the detectors match in `text`: [start, end, name], in order, not overlapping. */
export function detectSecrets(text: string): [number, number, string][] {
  if (text.length < MIN_SECRET_CHARS) return []
  const found: [number, number, string][] = privateKeys(text)
  for (const d of SECRET_DETECTORS) {
    if (!d.literals.some((l) => text.includes(l))) continue
    d.pattern.lastIndex = 0
    for (let m = d.pattern.exec(text); m !== null; m = d.pattern.exec(text)) {
      found.push([m.index, m.index + m[0].length, d.name])
      if (m[0].length === 0) d.pattern.lastIndex++
    }
  }
  if (text.includes('.eyJ')) found.push(...jwts(text))
  if (found.length < 2) return found
  // Earlier detectors win where two overlap: keep the first-found of overlapping spans.
  found.sort((a, b) => a[0] - b[0])
  const kept: [number, number, string][] = []
  for (const span of found) {
    const last = kept[kept.length - 1]
    if (last !== undefined && span[0] < last[1]) continue
    kept.push(span)
  }
  return kept
}
