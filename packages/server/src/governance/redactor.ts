/**
 * Masks secrets in what Burrow stores, shows and (with `forwarded`) sends on: values of the
 * configured keys at any depth (compared without case), matches of the user's RE2 patterns, and
 * what the built-in detectors recognise (secret-detectors.ts). A mask says what matched:
 * `[REDACTED:password]`, `[REDACTED:github_token]`, `[REDACTED:pattern]`. Users' patterns run on
 * RE2 within the tunnel's scan budget (pattern-scanner.ts, scan-budget.ts); a string the budget
 * cannot pay for is masked whole, `[REDACTED:unscanned]`. Values nested deeper than 64 levels are
 * masked whole.
 *
 * A stored copy is cut at 64 KiB anyway, so `redactValue` with a `StoredRoom` scans only what
 * can be kept (and a margin, so that a secret across the cut is still recognised): a 4 MiB body
 * costs no more than a 64 KiB one.
 */
import { PatternScanner } from './pattern-scanner.js'
import type { RedactionSettings } from './policy.js'
import { ScanBudget, type Scan } from './scan-budget.js'
import { detectSecrets } from './secret-detectors.js'
import { addJoinedSpans, mergeSpans, type Span } from './field-spans.js'
import { secretNames } from './secret-names.js'

/** Values nested deeper than this are replaced whole. */
const MAX_DEPTH = 64

/** The mask for `name`. */
export function mask(name: string): string {
  return `[REDACTED:${name}]`
}

/** Whether `key: value` is a member of a JSON-RPC message's envelope, which says what it is. */
function isEnvelope(key: string, value: unknown): boolean {
  if (key === 'jsonrpc') return value === '2.0'
  if (key === 'id') return value === null || typeof value === 'string' || typeof value === 'number'
  return key === 'method' && typeof value === 'string'
}
/** Its members whose names are the protocol's: `redactMessage` redacts their values only. */
const CONTENT: ReadonlySet<string> = new Set(['result', 'error', 'params'])

/**
 * Strings at least this long have the built-in detectors' time left out of the patterns' scan
 * (two readings of the clock, which cost less than the detectors on 512 characters); on shorter
 * ones it is too small to matter.
 */
const UNTIMED_DETECTION_CHARS = 512

/** Characters scanned past a stored copy's end, so that a secret across the cut is masked. */
export const STORED_MARGIN_CHARS = 16 * 1024

/**
 * What is left of a stored copy while its value is walked: characters still to keep, and whether
 * anything was left out. Strings past the room are cut before they are scanned.
 */
export interface StoredRoom {
  chars: number
  cut: boolean
}

/** A compiled redaction policy. */
export class Redactor {
  readonly #keys: ReadonlySet<string>
  /** The user's patterns; null without any. */
  readonly #scanner: PatternScanner | null
  readonly #budget: ScanBudget
  readonly #detect: boolean
  /** Most characters one scan of the patterns may read (Infinity without patterns). */
  readonly #scanChars: number
  /** The scan of the redaction under way (one for a whole value); undefined until it needs one. */
  #scan: Scan | undefined
  /** Whether a redaction is under way (`redactValue` walks values with nested calls). */
  #walking = false
  /** Strings masked whole because they could not be scanned, since the redactor was built. */
  #unscanned = 0
  /** Object keys among them. */
  #keysUnscanned = 0
  /** Masks `redact*` made since the redactor was built. */
  masked = 0
  /** Whether a key masks an object or array under it whole (all but `redactDefinition`). */
  #keysMaskObjects = true

  /** `budget`: what the patterns may cost; the tunnel's, shared by its policy versions. */
  constructor(settings: RedactionSettings, budget: ScanBudget = new ScanBudget()) {
    this.#keys = new Set(settings.keys.map((k) => k.toLowerCase()))
    this.#detect = settings.detectSecrets
    this.#scanner = settings.patterns.length === 0 ? null : PatternScanner.of(settings.patterns)
    this.#budget = budget
    this.#scanChars =
      this.#scanner === null ? Infinity : Math.floor(budget.maxSteps / this.#scanner.size)
  }

  /** True when this redactor can change anything. */
  get active(): boolean {
    return this.#keys.size > 0 || this.#scanner !== null || this.#detect
  }

  /** `text` with every match of the detectors and the patterns masked. */
  redactText(text: string): string {
    return this.#walk(() => this.#text(text))
  }

  /**
   * Header fields as they may reach the agent, in one scan: the value of each field whose
   * (lower-case) name is not `exempt` is scanned as a string of an answer is, and masked whole
   * when its name is a configured key. The fields of one name are also scanned joined (with
   * nothing between them, and with `, ` as a reader combines them), so that a secret split
   * across them is masked in every field it spans. A field whose name is not `keptName` and
   * holds a secret, or could not be scanned, is null in its place: a name cannot hold a mask
   * (secret-names.ts); each counts as one mask. `fields` itself when nothing was masked.
   */
  redactFields(
    fields: readonly (readonly [string, string])[],
    exempt: (name: string) => boolean,
    keptName: (name: string) => boolean = exempt,
  ): readonly (readonly [string, string] | null)[] {
    return this.#walk(() => {
      const before = this.masked
      const out: (readonly [string, string] | null)[] = fields.slice()
      const leftOut = secretNames(
        fields.map(([name]) => name),
        (name) => !keptName(name),
        (text) => this.#spans(text),
      )
      for (const [i, why] of leftOut) {
        out[i] = null
        this.masked++
        if (why === 'unscanned') this.#unscanned++
      }
      const byName = new Map<string, number[]>()
      for (let i = 0; i < fields.length; i++) {
        const name = fields[i]![0].toLowerCase()
        if (exempt(name) || leftOut.has(i)) continue
        const at = byName.get(name)
        if (at === undefined) byName.set(name, [i])
        else at.push(i)
      }
      for (const [name, at] of byName) {
        const values = at.map((i) => fields[i]![1])
        let spans: (Span[] | null)[]
        if (this.#keys.has(name)) {
          spans = values.map((v) => [[0, v.length, name]])
        } else {
          spans = values.map((v) => this.#spans(v))
          for (const separator of values.length > 1 ? ['', ', '] : []) {
            const joined = this.#spans(values.join(separator))
            if (joined === null) spans = spans.map(() => null)
            else addJoinedSpans(values, separator, joined, spans)
          }
        }
        for (let k = 0; k < at.length; k++) {
          const found = spans[k]!
          const value =
            found === null ? this.#unscannable() : this.#maskSpans(values[k]!, mergeSpans(found))
          if (value !== values[k]) out[at[k]!] = [fields[at[k]!]![0], value]
        }
      }
      return this.masked === before ? fields : out
    })
  }

  /**
   * Where the detectors and the patterns match in `text`, both read as it came (so the spans are
   * its own); null when the patterns could not scan it.
   */
  #spans(text: string): Span[] | null {
    if (text.length === 0) return []
    if (this.#scanner !== null && this.#scan?.over === true) return null
    const found: Span[] = this.#detect ? [...detectSecrets(text)] : []
    if (this.#scanner === null) return found
    this.#scan ??= this.#budget.start()
    const scanned = this.#scanner.scan(text, this.#scan, (t, spans) => {
      for (const [start, end] of spans) found.push([start, end, 'pattern'])
      // Unchanged: every program reads the text as it came.
      return t
    })
    return scanned === null ? null : found
  }

  /**
   * `redact()` as one redaction: all its pattern searches are one scan, timed once (the clock is
   * read when it starts and ends, and between searches only after many steps).
   */
  #walk<T>(redact: () => T): T {
    if (this.#walking) return redact()
    this.#walking = true
    try {
      return redact()
    } finally {
      this.#walking = false
      this.#scan?.end()
      this.#scan = undefined
    }
  }

  #text(text: string): string {
    if (text.length === 0) return text
    // A scan that is over masks the rest whole: the detectors need not look.
    if (this.#scanner !== null && this.#scan?.over === true) return this.#unscannable()
    let out = text
    if (this.#detect) {
      // The detectors' time on a long string is not the patterns': it is left out of the scan's.
      const spans =
        this.#scan !== undefined && text.length >= UNTIMED_DETECTION_CHARS
          ? this.#scan.untimed(() => detectSecrets(text))
          : detectSecrets(text)
      out = this.#maskSpans(text, spans)
    }
    if (this.#scanner === null) return out
    this.#scan ??= this.#budget.start()
    const scanned = this.#scanner.scan(out, this.#scan, (t, spans) =>
      this.#maskSpans(
        t,
        spans.map(([start, end]) => [start, end, 'pattern']),
      ),
    )
    return scanned ?? this.#unscannable()
  }

  /** Whether the value `v` of `key` is masked whole for its name (a configured key). */
  #masksKey(key: string, v: unknown): boolean {
    if (v === null || v === undefined) return false
    if (!this.#keysMaskObjects && typeof v === 'object') return false
    return this.#keys.has(key.toLowerCase())
  }

  #unscannable(): string {
    this.masked++
    this.#unscanned++
    return mask('unscanned')
  }

  #maskSpans(text: string, spans: readonly [number, number, string][]): string {
    if (spans.length === 0) return text
    let out = ''
    let at = 0
    for (const [start, end, name] of spans) {
      out += text.slice(at, start) + mask(name)
      at = end
      this.masked++
    }
    return out + text.slice(at)
  }

  /**
   * The JSON value with masked keys and strings; the input is not changed. Parts with nothing to
   * mask are shared with the input, not copied (most calls carry no secret).
   */
  redactValue(value: unknown, depth = 0, room?: StoredRoom): unknown {
    return this.#walk(() => this.#value(value, depth, room))
  }

  /**
   * A tool definition as rug-pull pins keep it: as `redactValue`, but a key masks only a string,
   * number or boolean under it. A parameter named like a secret (`password`) keeps its schema,
   * whose description is where a poisoned tool hides its instructions: masked whole, a change
   * there showed the owner two identical definitions to approve. Strings inside are still
   * scanned, so a secret written in the schema is masked.
   */
  redactDefinition(value: unknown, room?: StoredRoom): unknown {
    this.#keysMaskObjects = false
    try {
      return this.redactValue(value, 0, room)
    } finally {
      this.#keysMaskObjects = true
    }
  }

  #value(value: unknown, depth: number, room: StoredRoom | undefined): unknown {
    if (room !== undefined) {
      if (room.chars < -STORED_MARGIN_CHARS) {
        // Past the stored copy's end and its margin: nothing here would be kept.
        room.cut = true
        return null
      }
      if (typeof value === 'string') {
        const byRoom = Math.max(0, room.chars) + STORED_MARGIN_CHARS
        // The patterns may scan fewer characters than the room holds: then less is kept, and
        // the margin is left out of what was scanned, so no secret across the cut is kept in part.
        const keep = Math.min(byRoom, this.#scanChars)
        if (value.length > keep) room.cut = true
        let redacted = this.#text(value.length > keep ? value.slice(0, keep) : value)
        if (keep < byRoom && value.length > keep) {
          redacted = redacted.slice(0, Math.max(0, redacted.length - STORED_MARGIN_CHARS))
        }
        // What is written, not what came: a mask is shorter than its secret, and counting the
        // secret would cut a later string while it is still inside the stored copy.
        room.chars -= redacted.length + 2
        return redacted
      }
      // Counted short (JSON escapes lengthen strings): the room never runs out before the text.
      room.chars -= typeof value === 'object' && value !== null ? 2 : String(value).length + 1
    }
    if (typeof value === 'string') return this.#text(value)
    if (
      typeof value === 'number' &&
      room !== undefined &&
      this.#scanner !== null &&
      this.#scan?.over !== true
    ) {
      // A card number can be sent as a JSON number: in what is kept, the patterns read its
      // digits, and a match turns the number into the masked text. What is forwarded keeps its
      // numbers (an error code or a progress token that became text would break the agent), and
      // so does a scan that is over (strings are masked whole then).
      const digits = String(value)
      const redacted = this.#text(digits)
      return redacted === digits ? value : redacted
    }
    if (typeof value !== 'object' || value === null) return value
    if (depth >= MAX_DEPTH) {
      this.masked++
      return mask('too_deep')
    }
    if (Array.isArray(value)) {
      let copy: unknown[] | null = null
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i]
        const redacted = this.#value(item, depth + 1, room)
        if (copy === null && redacted !== item) copy = value.slice(0, i)
        copy?.push(redacted)
      }
      return copy ?? value
    }
    // Keys, not entries: no pair is made for the (usual) value with nothing to mask.
    const record = value as Record<string, unknown>
    const keys = Object.keys(record)
    const byKey = this.#keys.size > 0
    let copy: [string, unknown][] | null = null
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      const v = record[key]
      // Keys are the agent's text too: a token can be sent as one.
      const unscanned = this.#unscanned
      const outKey = key === '' ? key : this.#text(key)
      if (this.#unscanned !== unscanned) this.#keysUnscanned++
      let redacted: unknown
      if (room !== undefined) room.chars -= outKey.length + 3
      if (byKey && this.#masksKey(key, v)) {
        redacted = mask(key.toLowerCase())
        this.masked++
      } else {
        redacted = this.#value(v, depth + 1, room)
      }
      if (copy === null && (redacted !== v || outKey !== key)) {
        copy = keys.slice(0, i).map((k): [string, unknown] => [k, record[k]])
      }
      copy?.push([outKey, redacted])
    }
    // fromEntries defines each key as its own property (a "__proto__" key stays a key).
    return copy === null ? value : Object.fromEntries(copy)
  }

  /**
   * A JSON-RPC message as it may reach the agent: its envelope (`jsonrpc: "2.0"`, a string,
   * number or null `id`, a string `method`) kept as it is, and the names of `result`, `error`
   * and `params` too, since the agent reads the message by them; everything else redacted. A
   * value that is not an object, or an envelope member of another type, is redacted like any
   * other. `message` is the input itself when nothing was masked. `shapeLost` is true when a key
   * of the content could not be scanned and was masked whole: the content no longer has the
   * shape it had.
   */
  redactMessage(value: unknown): { message: unknown; shapeLost: boolean } {
    return this.#walk(() => {
      const before = this.masked
      const keysBefore = this.#keysUnscanned
      let message: unknown
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        message = this.#value(value, 0, undefined)
      } else {
        const record = value as Record<string, unknown>
        const out: [string, unknown][] = []
        for (const key of Object.keys(record)) {
          const v = record[key]
          if (isEnvelope(key, v)) out.push([key, v])
          else if (CONTENT.has(key) && !this.#masksKey(key, v)) {
            out.push([key, this.#value(v, 1, undefined)])
          } else out.push(...Object.entries(this.#value({ [key]: v }, 0, undefined) as object))
        }
        message = this.masked === before ? value : Object.fromEntries(out)
      }
      return { message, shapeLost: this.#keysUnscanned !== keysBefore }
    })
  }
}
