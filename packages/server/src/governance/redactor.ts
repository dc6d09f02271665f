/**
 * Masks secrets in what Burrow stores, shows and (with `forwarded`) sends on: values of the
 * configured keys at any depth (compared without case), matches of the user's RE2 patterns, and
 * what the built-in detectors recognise. A mask says what matched: `[REDACTED:password]`,
 * `[REDACTED:github_token]`, `[REDACTED:pattern]`. RE2 runs in linear time, so no pattern a
 * user writes can hang the edge. Walks JSON without recursion limits of its own: values nested
 * deeper than 64 levels are masked whole.
 */
import { RE2JS } from 're2js'
import type { RedactionSettings } from './policy.js'
import { SECRET_DETECTORS } from './secret-detectors.js'

/** Values nested deeper than this are replaced whole. */
const MAX_DEPTH = 64

/** The mask for `name`. */
export function mask(name: string): string {
  return `[REDACTED:${name}]`
}

/** A compiled redaction policy. */
export class Redactor {
  readonly #keys: ReadonlySet<string>
  readonly #scanner: RE2JS | null
  readonly #names: readonly string[]
  /** Masks `redact*` made since the redactor was built. */
  masked = 0

  constructor(settings: RedactionSettings) {
    this.#keys = new Set(settings.keys.map((k) => k.toLowerCase()))
    const parts: string[] = []
    const names: string[] = []
    if (settings.detectSecrets) {
      for (const d of SECRET_DETECTORS) {
        names.push(d.name)
        parts.push(`(?P<redact${names.length - 1}>${d.pattern})`)
      }
    }
    for (const p of settings.patterns) {
      names.push('pattern')
      parts.push(`(?P<redact${names.length - 1}>${p})`)
    }
    this.#names = names
    this.#scanner = parts.length === 0 ? null : RE2JS.compile(parts.join('|'))
  }

  /** True when this redactor can change anything. */
  get active(): boolean {
    return this.#keys.size > 0 || this.#scanner !== null
  }

  /** `text` with every match of the patterns and detectors masked. */
  redactText(text: string): string {
    const scanner = this.#scanner
    if (scanner === null || text.length === 0) return text
    const m = scanner.matcher(text)
    let out = ''
    let at = 0
    while (m.find()) {
      const start = m.start()
      const end = m.end()
      if (end === start) continue
      out += text.slice(at, start) + mask(this.#which(m))
      at = end
      this.masked++
    }
    return at === 0 ? text : out + text.slice(at)
  }

  /** A copy of a JSON value with masked keys and strings; the input is not changed. */
  redactValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redactText(value)
    if (typeof value !== 'object' || value === null) return value
    if (depth >= MAX_DEPTH) {
      this.masked++
      return mask('too_deep')
    }
    if (Array.isArray(value)) return value.map((v) => this.redactValue(v, depth + 1))
    const out: Record<string, unknown> = {}
    for (const [key, v] of Object.entries(value)) {
      if (this.#keys.has(key.toLowerCase()) && v !== null && v !== undefined) {
        out[key] = mask(key.toLowerCase())
        this.masked++
      } else {
        out[key] = this.redactValue(v, depth + 1)
      }
    }
    return out
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

  #which(m: ReturnType<RE2JS['matcher']>): string {
    for (let i = 0; i < this.#names.length; i++)
      if (m.group(`redact${i}`) !== null) return this.#names[i]!
    return 'secret'
  }
}
