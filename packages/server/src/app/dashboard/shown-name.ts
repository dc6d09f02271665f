/**
 * Names a local server chose (tools, methods, schema paths), and text it wrote (descriptions,
 * recorded bodies), as the dashboard shows them: characters a reader cannot see (zero-width,
 * bidi controls, other format and control characters, blanks other than a plain space, private
 * use, unassigned) become a marked `U+200B` escape, and so do leading, trailing and doubled
 * spaces of a name; a name with letters of more than one script (a Cyrillic `і` in `read_fіle`)
 * is flagged. Only the display changes: what is stored, compared, submitted and approved is the
 * name as sent.
 */
import { html, type SafeHtml } from '../../http/html.js'

/** A run of text as shown: as it is, or a hidden character's escape. */
export interface NamePart {
  readonly text: string
  /** The escape of a character the reader could not see (its code point, or a count cut). */
  readonly hidden: boolean
  /** What the hidden character is, for a tooltip. */
  readonly what?: string
}

/** Escapes written for one run of hidden characters; the rest of the run is counted. */
const MAX_ESCAPES_PER_RUN = 16

/**
 * Escapes written for one text; past them hidden characters are left out and counted at its end,
 * so a definition of alternating letters and U+200B (2 Mi of each) cannot make a page of 100 MB.
 */
export const MAX_ESCAPES_PER_TEXT = 1000

/**
 * Escapes written for one page, across all its texts (`withEscapeBudget`): each text's own bound
 * did not bound a page of many texts, and a server's 19 tools of 200 fields, each full of DEL
 * characters, made a Tools tab of 204 MB that held the node for seconds per load (found by a
 * hostile review). Past it, hidden characters are left out and counted, as past a text's bound.
 */
export const MAX_ESCAPES_PER_PAGE = 20_000

/** What is left of the budget of the page being rendered, or null outside one. */
let pageBudget: { left: number } | null = null

/**
 * Render `build` with one budget of `escapes` for every text and name it shows. `build` must be
 * synchronous (the pages are: their data is read before), so the budget is the page's alone.
 */
export function withEscapeBudget<T>(build: () => T, escapes = MAX_ESCAPES_PER_PAGE): T {
  const outer = pageBudget
  pageBudget = { left: escapes }
  try {
    return build()
  } finally {
    pageBudget = outer
  }
}

/**
 * Characters never seen as themselves: controls, format characters (zero-width, bidi, tags),
 * line and paragraph separators, private use, unassigned, lone surrogates, everything Unicode
 * says to render as nothing, and blanks that look like letters' absence (U+2800 braille blank).
 */
const HIDDEN_BUT_CONTROLS =
  '\\p{Cf}\\p{Co}\\p{Cn}\\p{Cs}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}\\u2800' +
  // Every blank of category Zs but U+0020.
  '\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000'

/**
 * Hidden characters one match takes at most: these classes hold astral characters, which V8
 * matches with a backtracking entry per character, and a run of some 4 Mi overflowed its stack.
 * A longer run is matched in parts, one right after the other, and counted as one run.
 */
const HIDDEN_PER_MATCH = 4096

/**
 * In a name: those, every control, and spaces at either end or next to another space. Each is
 * one character class repeated (an alternation repeated over 4 Mi characters overflowed the
 * stack), the hidden ones at most `HIDDEN_PER_MATCH` at a time.
 */
const HIDDEN_IN_NAME = new RegExp(
  `^ +| +$| {2,}|[\\p{Cc}${HIDDEN_BUT_CONTROLS}]{1,${HIDDEN_PER_MATCH}}`,
  'gu',
)

/** In text: those and every control but line feeds and tabs. */
const HIDDEN_IN_TEXT = new RegExp(
  `[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${HIDDEN_BUT_CONTROLS}]{1,${HIDDEN_PER_MATCH}}`,
  'gu',
)

/** Names of the hidden characters met most. */
const KNOWN: Readonly<Record<number, string>> = {
  0x09: 'tab',
  0x0a: 'line feed',
  0x0d: 'carriage return',
  0x20: 'space',
  0xa0: 'no-break space',
  0xad: 'soft hyphen',
  0x034f: 'combining grapheme joiner',
  0x061c: 'Arabic letter mark',
  0x115f: 'Hangul choseong filler',
  0x1160: 'Hangul jungseong filler',
  0x180e: 'Mongolian vowel separator',
  0x200b: 'zero width space',
  0x200c: 'zero width non-joiner',
  0x200d: 'zero width joiner',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2060: 'word joiner',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0x2800: 'braille pattern blank',
  0x3164: 'Hangul filler',
  0xfeff: 'zero width no-break space (BOM)',
  0xffa0: 'halfwidth Hangul filler',
}

/** How many code points `text` has (a surrogate pair is one), without splitting it. */
function codePoints(text: string): number {
  return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0)
}

/** `U+200B`. */
function codePoint(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`
}

function describe(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0
  if (KNOWN[cp]) return KNOWN[cp]
  if (cp >= 0xe0000 && cp <= 0xe007f) return 'tag character (invisible)'
  if (cp >= 0xfe00 && cp <= 0xfe0f) return 'variation selector'
  if (/\p{Zs}/u.test(ch)) return 'space other than U+0020'
  if (/\p{Cc}/u.test(ch)) return 'control character'
  if (/\p{Co}/u.test(ch)) return 'private use character'
  if (/\p{Cn}/u.test(ch)) return 'unassigned code point'
  return 'invisible character'
}

/**
 * `text` cut into what shows as it is and escapes of what would not. With `spaces: 'name'`, a
 * space at either end or next to another space is escaped too (in a name, `search ` is not
 * `search`, and HTML folds two spaces into one); with `spaces: 'text'`, spaces, line feeds and
 * tabs are kept (indented JSON). Text is scanned by one regular expression, so a definition of
 * megabytes costs milliseconds, not the event loop's second.
 */
export function nameParts(text: string, spaces: 'name' | 'text' = 'name'): NamePart[] {
  const pattern = spaces === 'name' ? HIDDEN_IN_NAME : HIDDEN_IN_TEXT
  const parts: NamePart[] = []
  let last = 0
  let run = 0
  let more = 0
  const endRun = () => {
    if (more > 0)
      parts.push({ text: `…${more} more`, hidden: true, what: 'more invisible characters' })
    run = 0
    more = 0
  }
  let escapes = 0
  const budget = pageBudget
  const cap = Math.min(MAX_ESCAPES_PER_TEXT, budget?.left ?? Infinity)
  pattern.lastIndex = 0
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    if (escapes >= cap) {
      // The rest is shown without its hidden characters, and how many were left out is said.
      endRun()
      const rest = text.slice(m.index)
      const shown = rest.replace(pattern, '')
      if (text.slice(last, m.index) + shown) {
        parts.push({ text: text.slice(last, m.index) + shown, hidden: false })
      }
      const left = codePoints(rest) - codePoints(shown)
      parts.push({
        text: `${left} more hidden characters left out`,
        hidden: true,
        what:
          cap < MAX_ESCAPES_PER_TEXT
            ? `hidden characters past the first ${MAX_ESCAPES_PER_PAGE.toLocaleString('en')} of the page are not shown`
            : 'hidden characters past the first 1,000 are not shown',
      })
      return parts
    }
    if (m.index > last) {
      endRun()
      parts.push({ text: text.slice(last, m.index), hidden: false })
    }
    let at = 0
    for (const ch of m[0]) {
      // A long run (tag characters can spell a whole hidden sentence) is counted, not spelled.
      if (run === MAX_ESCAPES_PER_RUN) {
        more += codePoints(m[0].slice(at))
        break
      }
      run++
      at += ch.length
      parts.push({ text: codePoint(ch), hidden: true, what: describe(ch) })
      escapes++
      if (budget !== null) budget.left--
    }
    last = m.index + m[0].length
  }
  endRun()
  if (last < text.length) parts.push({ text: text.slice(last), hidden: false })
  return parts
}

/** Scripts named when a name is flagged; letters of any other are "another script". */
const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Armenian',
  'Georgian',
  'Cherokee',
  'Coptic',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Devanagari',
  'Bengali',
  'Thai',
  'Lao',
  'Tibetan',
  'Ethiopic',
  'Mongolian',
  'Han',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Hangul',
] as const

/** Characters of no script of their own, shared by all (digits, punctuation, accents). */
const SHARED = '\\p{Script=Common}\\p{Script=Inherited}'

/**
 * One scan of a name: each match is a run of what is not a letter or digit of a script (skipped),
 * or a run starting at a letter of one script, numbered as `SCRIPTS` (group 1 for Latin…), then
 * group `SCRIPTS.length + 1` for letters of any other script. A run goes on over that script's
 * characters and the shared ones, so a name in one script is one match and each character is
 * looked at once, where testing each character against each script cost some 25 regular
 * expressions a character. Every alternative is one character class repeated (V8 still takes a
 * backtracking entry per character for classes holding astral characters: `SCAN_SLICE`).
 */
const SCRIPT_RUNS = new RegExp(
  [
    `[${SHARED}]+`,
    '[^\\p{L}\\p{N}]+',
    ...SCRIPTS.map((s) => `(\\p{Script=${s}}[\\p{Script=${s}}${SHARED}]*)`),
    `([\\p{L}\\p{N}][^${SCRIPTS.map((s) => `\\p{Script=${s}}`).join('')}]*)`,
  ].join('|'),
  'gu',
)

/** Written together in one language, so not a mix: Japanese, Chinese, Korean. */
const CJK = new Set(['Han', 'Hiragana', 'Katakana', 'Bopomofo', 'Hangul'])

/** What `nameScripts` found. */
export interface NameScripts {
  /** Scripts of the name's letters and digits (not of punctuation and marks every script uses). */
  readonly scripts: readonly string[]
  /** Letters of more than one script. */
  readonly mixed: boolean
  /** Characters outside printable ASCII (MCP asks for `A-Z a-z 0-9 _ - .` in tool names). */
  readonly nonAscii: boolean
}

/**
 * Characters `SCRIPT_RUNS` is run over at a time. A run of a script whose class holds astral
 * characters (all but Latin's, as V8 compiles them) takes a backtracking entry per character,
 * and some 4 Mi of them overflowed the stack; a run cut where a slice ends goes on as a run of the
 * same script in the next, so the scripts found are the same.
 */
const SCAN_SLICE = 1 << 16

/** The scripts of `name`'s letters. */
export function nameScripts(name: string): NameScripts {
  const found = new Set<string>()
  for (let start = 0; start < name.length;) {
    let end = Math.min(start + SCAN_SLICE, name.length)
    // A surrogate pair is not cut in two.
    if (end < name.length && /[\uD800-\uDBFF]/.test(name[end - 1]!)) end--
    const slice = name.slice(start, end)
    SCRIPT_RUNS.lastIndex = 0
    for (let m = SCRIPT_RUNS.exec(slice); m !== null; m = SCRIPT_RUNS.exec(slice)) {
      const group = m.findIndex((g, i) => i > 0 && g !== undefined)
      if (group > 0) found.add(SCRIPTS[group - 1] ?? 'another script')
    }
    start = end
  }
  const scripts = [...found]
  const mixed = scripts.length > 1 && !scripts.every((s) => CJK.has(s))
  return { scripts, mixed, nonAscii: /[^\x20-\x7e]/.test(name) }
}

/** Parts as HTML: hidden characters as marked escapes. */
function partsHtml(parts: readonly NamePart[]): SafeHtml {
  return html`${parts.map((p) =>
    p.hidden ? html`<mark class="np" title="${p.what ?? ''}">${p.text}</mark>` : p.text,
  )}`
}

/** The flag of a name of several scripts, or of letters outside ASCII; '' for neither. */
function scriptsFlag(name: string): SafeHtml | '' {
  const s = nameScripts(name)
  if (s.mixed) {
    return html` <span class="badge stopped" data-mixed-scripts="${s.scripts.join(' ')}" title="Letters of several scripts can imitate another name: a Cyrillic і looks like a Latin i.">mixes ${s.scripts.join(' and ')}</span>`
  }
  if (s.scripts.some((x) => x !== 'Latin')) {
    return html` <span class="badge offline" data-scripts="${s.scripts.join(' ')}">${s.scripts.join(' and ')} letters</span>`
  }
  return ''
}

/**
 * A name a local server chose, in `<code>`, its hidden characters escaped and marked, flagged
 * when its letters mix scripts. '' stays empty.
 */
export function shownName(name: string | null | undefined): SafeHtml {
  if (!name) return html``
  return html`<code class="name">${partsHtml(nameParts(name))}</code>${scriptsFlag(name)}`
}

/** Text a local server wrote (a description, a body), its hidden characters marked. */
export function shownText(text: string): SafeHtml {
  return partsHtml(nameParts(text, 'text'))
}

/** A name as plain text (a title, a chart's label): escapes in brackets, `[U+200B]`. */
export function shownNameText(name: string | null | undefined): string {
  if (!name) return ''
  const text = nameParts(name)
    .map((p) => (p.hidden ? `[${p.text}]` : p.text))
    .join('')
  return nameScripts(name).mixed ? `${text} (mixed scripts)` : text
}
