/**
 * Masks secrets in what Burrow stores, shows and (with `forwarded`) sends on: values of the
 * configured keys at any depth (compared without case), matches of the user's RE2 patterns, and
 * what the built-in detectors recognise (secret-detectors.ts). A mask says what matched:
 * `[REDACTED:password]`, `[REDACTED:github_token]`, `[REDACTED:pattern]`. Users' patterns run on
 * RE2, in linear time, so no pattern a user writes can hang the edge. Walks JSON without recursion limits of its own: values nested
 * deeper than 64 levels are masked whole.
 */
import { RE2JS } from 're2js'
import type { RedactionSettings } from './policy.js'
import { detectSecrets } from './secret-detectors.js'

/** Values nested deeper than this are replaced whole. */
const MAX_DEPTH = 64

/** The mask for `name`. */
export function mask(name: string): string {
  return `[REDACTED:${name}]`
}

/** A compiled redaction policy. */
export class Redactor {
  readonly #keys: ReadonlySet<string>
  /** The user's patterns, as one RE2 alternation; null without any. */
  readonly #scanner: RE2JS | null
  readonly #detect: boolean
  /** Masks `redact*` made since the redactor was built. */
  masked = 0

  constructor(settings: RedactionSettings) {
    this.#keys = new Set(settings.keys.map((k) => k.toLowerCase()))
    this.#detect = settings.detectSecrets
    this.#scanner =
      settings.patterns.length === 0
        ? null
        : RE2JS.compile(settings.patterns.map((p) => `(?:${p})`).join('|'))
  }

  /** True when this redactor can change anything. */
  get active(): boolean {
    return this.#keys.size > 0 || this.#scanner !== null || this.#detect
  }

  /** `text` with every match of the detectors and the patterns masked. */
  redactText(text: string): string {
    if (text.length === 0) return text
    let out = this.#detect ? this.#maskSpans(text, detectSecrets(text)) : text
    if (this.#scanner !== null) out = this.#maskSpans(out, this.#userSpans(out))
    return out
  }

  /** Matches of the user's patterns (RE2: linear time whatever they are). */
  #userSpans(text: string): [number, number, string][] {
    const spans: [number, number, string][] = []
    const m = this.#scanner!.matcher(text)
    while (m.find()) {
      if (m.end() > m.start()) spans.push([m.start(), m.end(), 'pattern'])
    }
    return spans
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
  redactValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redactText(value)
    if (typeof value !== 'object' || value === null) return value
    if (depth >= MAX_DEPTH) {
      this.masked++
      return mask('too_deep')
    }
    if (Array.isArray(value)) {
      let copy: unknown[] | null = null
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i]
        const redacted = this.redactValue(item, depth + 1)
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
      let redacted: unknown
      if (byKey && v !== null && v !== undefined && this.#keys.has(key.toLowerCase())) {
        redacted = mask(key.toLowerCase())
        this.masked++
      } else {
        redacted = this.redactValue(v, depth + 1)
      }
      if (copy === null && redacted !== v) {
        copy = keys.slice(0, i).map((k): [string, unknown] => [k, record[k]])
      }
      copy?.push([key, redacted])
    }
    // fromEntries defines each key as its own property (a "__proto__" key stays a key).
    return copy === null ? value : Object.fromEntries(copy)
  }

  /**
   * JSON text with its values redacted (re-serialized only when something changed), or the text
   * redacted as plain text when it is not JSON.
   */
  redactJsonText(text: string): string {
    if (!this.active) return text
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return this.redactText(text)
    }
    const before = this.masked
    const redacted = this.redactValue(parsed)
    return this.masked === before ? text : JSON.stringify(redacted)
  }
}
