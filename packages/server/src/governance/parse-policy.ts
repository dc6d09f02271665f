/**
 * Strict validation of a policy document, as a user sends it (`PUT /api/tunnels/:id/policy`, the
 * Policy tab): unknown keys, wrong types, bad globs, patterns RE2 cannot compile, limits out of
 * range are refused with the path of the field at fault (`rate_limits[1].limit`) and what is
 * accepted. Missing sections take the defaults; nothing partial is ever applied.
 */
import picomatch from 'picomatch'
import { RE2JS } from 're2js'
import { joinPatterns, MAX_PATTERN_PROGRAM } from './pattern-scanner.js'
import { DEFAULT_POLICY, type Policy, type RateLimitRule, type RugPullMode } from './policy.js'
import { globProblem } from './tool-rules.js'

/** Why a document is not a policy: the field and what is wrong with it. */
export interface PolicyProblem {
  readonly field: string
  readonly message: string
}

/** Bounds on a policy, so that one cannot slow the edge down. */
export const POLICY_LIMITS = {
  globs: 100,
  globChars: 200,
  /**
   * Characters of all of a new policy's globs together (allow, deny, rate limits): checking and
   * compiling 250 globs of 200 characters took one to two seconds a write.
   */
  globTotalChars: 4000,
  rateLimits: 50,
  maxLimit: 1_000_000,
  maxPerSeconds: 86_400,
  keys: 100,
  keyChars: 100,
  patterns: 50,
  patternChars: 500,
  /** Unicode classes (`\p…`, `\P…`) in all patterns: each can take a millisecond to compile. */
  unicodeClasses: 20,
} as const

const MODES: readonly RugPullMode[] = ['off', 'alert', 'hold']

/** Thrown inside the parser; turned into a `PolicyProblem`. */
class Refusal extends Error {
  readonly field: string
  constructor(field: string, message: string) {
    super(message)
    this.field = field
  }
}

/** Options of `parsePolicy`. */
export interface ParseOptions {
  /**
   * The document was stored by an earlier write: rules added since it was written (the size of
   * the patterns' joined program) are not asked of it.
   */
  readonly stored?: boolean
}

/** The policy `value` describes, or the first problem with it. */
export function parsePolicy(value: unknown, opts: ParseOptions = {}): Policy | PolicyProblem {
  try {
    return read(value, opts.stored === true)
  } catch (err) {
    if (err instanceof Refusal) return { field: err.field, message: err.message }
    throw err
  }
}

/** True when `read` is a problem rather than a policy. */
export function isPolicyProblem(read: Policy | PolicyProblem): read is PolicyProblem {
  return 'field' in read
}

/** True when `glob` is one `parsePolicy` accepts. */
export function isValidGlob(glob: string): boolean {
  try {
    picomatch.makeRe(glob, { strictBrackets: true })
    return true
  } catch {
    return false
  }
}

/** Characters of globs a new document may still hold (`POLICY_LIMITS.globTotalChars`). */
interface GlobRoom {
  chars: number
}

function read(value: unknown, stored: boolean): Policy {
  const room: GlobRoom = { chars: stored ? Infinity : POLICY_LIMITS.globTotalChars }
  const doc = object(value, 'policy', [
    'tools',
    'rate_limits',
    'redaction',
    'zero_knowledge',
    'rug_pull',
  ])
  const tools = doc.tools === undefined ? null : object(doc.tools, 'tools', ['allow', 'deny'])
  const redaction =
    doc.redaction === undefined
      ? null
      : object(doc.redaction, 'redaction', ['keys', 'patterns', 'detect_secrets', 'forwarded'])
  const rugPull = doc.rug_pull === undefined ? null : object(doc.rug_pull, 'rug_pull', ['mode'])
  const d = DEFAULT_POLICY
  return Object.freeze({
    tools: Object.freeze({
      allow: tools?.allow === undefined ? d.tools.allow : globs(tools.allow, 'tools.allow', room),
      deny: tools?.deny === undefined ? d.tools.deny : globs(tools.deny, 'tools.deny', room),
    }),
    rateLimits:
      doc.rate_limits === undefined
        ? d.rateLimits
        : rateLimits(doc.rate_limits, 'rate_limits', room),
    redaction: Object.freeze({
      keys:
        redaction?.keys === undefined
          ? d.redaction.keys
          : strings(redaction.keys, 'redaction.keys', POLICY_LIMITS.keys, POLICY_LIMITS.keyChars),
      patterns:
        redaction?.patterns === undefined
          ? d.redaction.patterns
          : patterns(redaction.patterns, 'redaction.patterns', stored),
      detectSecrets:
        redaction?.detect_secrets === undefined
          ? d.redaction.detectSecrets
          : boolean(redaction.detect_secrets, 'redaction.detect_secrets'),
      forwarded:
        redaction?.forwarded === undefined
          ? d.redaction.forwarded
          : boolean(redaction.forwarded, 'redaction.forwarded'),
    }),
    zeroKnowledge:
      doc.zero_knowledge === undefined
        ? d.zeroKnowledge
        : boolean(doc.zero_knowledge, 'zero_knowledge'),
    rugPull: Object.freeze({
      mode: rugPull?.mode === undefined ? d.rugPull.mode : mode(rugPull.mode, 'rug_pull.mode'),
    }),
  })
}

function object(value: unknown, field: string, keys: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Refusal(field, `${field} must be an object`)
  }
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) {
      throw new Refusal(
        field === 'policy' ? key : `${field}.${key}`,
        `${field === 'policy' ? '' : `${field}.`}${key} is not a setting; expected ${keys.join(', ')}`,
      )
    }
  }
  return value as Record<string, unknown>
}

function strings(value: unknown, field: string, max: number, maxChars: number): readonly string[] {
  if (!Array.isArray(value)) throw new Refusal(field, `${field} must be a list of strings`)
  if (value.length > max) throw new Refusal(field, `${field} holds at most ${max} entries`)
  value.forEach((item, i) => {
    if (typeof item !== 'string' || item.length === 0 || item.length > maxChars) {
      throw new Refusal(
        `${field}[${i}]`,
        `${field}[${i}] must be a string of 1 to ${maxChars} characters`,
      )
    }
  })
  return Object.freeze([...(value as string[])])
}

function globs(value: unknown, field: string, room: GlobRoom): readonly string[] {
  const list = strings(value, field, POLICY_LIMITS.globs, POLICY_LIMITS.globChars)
  // A stored document has all the room it needs: it was checked when it was written.
  const stored = room.chars === Infinity
  list.forEach((glob, i) => {
    // Counted before the glob is checked: a document costs at most the bound's checking.
    room.chars -= glob.length
    if (room.chars < 0) {
      throw new Refusal(
        `${field}[${i}]`,
        `${field}[${i}] passes the ${POLICY_LIMITS.globTotalChars} characters all the globs of a ` +
          'policy (tools.allow, tools.deny and rate_limits) may hold together; use fewer or shorter globs',
      )
    }
    if (!isValidGlob(glob)) {
      throw new Refusal(
        `${field}[${i}]`,
        `${field}[${i}] "${glob}" is not a valid glob (unbalanced [ ] or { }); use * ? [abc] {a,b}`,
      )
    }
    // A policy stored before these checks is read as it was written.
    const problem = stored ? null : globProblem(glob)
    if (problem !== null) throw new Refusal(`${field}[${i}]`, `${field}[${i}] ${problem}`)
  })
  return list
}

function patterns(value: unknown, field: string, stored: boolean): readonly string[] {
  const list = strings(value, field, POLICY_LIMITS.patterns, POLICY_LIMITS.patternChars)
  // Compiled one by one with a running total, refused as soon as it passes the bound: checking a
  // document costs at most one program past it, however large its patterns are.
  let size = 0
  let unicode = 0
  list.forEach((pattern, i) => {
    if (/\(\?P?</.test(pattern)) {
      throw new Refusal(
        `${field}[${i}]`,
        `${field}[${i}] may not name its groups; use (...) or (?:...)`,
      )
    }
    // A stored document's patterns compiled when it was written; the edge compiles them (once).
    if (stored) return
    unicode += pattern.match(/\\[pP]/g)?.length ?? 0
    if (unicode > POLICY_LIMITS.unicodeClasses) {
      throw new Refusal(
        `${field}[${i}]`,
        `${field} may use at most ${POLICY_LIMITS.unicodeClasses} Unicode classes (\\p… or \\P…) in all`,
      )
    }
    try {
      size += RE2JS.compile(pattern).programSize()
    } catch (err) {
      throw new Refusal(
        `${field}[${i}]`,
        `${field}[${i}] is not a valid RE2 pattern: ${(err as Error).message}`,
      )
    }
    if (size > MAX_PATTERN_PROGRAM) throw tooLarge(field, size)
  })
  if (!stored && list.length > 1) {
    let joined: number
    try {
      joined = RE2JS.compile(joinPatterns(list)).programSize()
    } catch {
      joined = Infinity
    }
    if (joined > MAX_PATTERN_PROGRAM) throw tooLarge(field, joined)
  }
  return list
}

function tooLarge(field: string, size: number): Refusal {
  return new Refusal(
    field,
    `${field} together compile to ${Number.isFinite(size) ? `${size} RE2 instructions` : 'a program too large'}, ` +
      `more than the ${MAX_PATTERN_PROGRAM} allowed (each counted repetition such as {40} ` +
      'repeats what it applies to); use fewer patterns or smaller counts',
  )
}

function rateLimits(value: unknown, field: string, room: GlobRoom): readonly RateLimitRule[] {
  if (!Array.isArray(value)) throw new Refusal(field, `${field} must be a list of rules`)
  if (value.length > POLICY_LIMITS.rateLimits)
    throw new Refusal(field, `${field} holds at most ${POLICY_LIMITS.rateLimits} rules`)
  return Object.freeze(
    value.map((item, i): RateLimitRule => {
      const at = `${field}[${i}]`
      const rule = object(item, at, ['tool', 'method', 'limit', 'per_seconds', 'per'])
      if (rule.per !== undefined && rule.per !== 'tunnel' && rule.per !== 'agent') {
        throw new Refusal(`${at}.per`, `${at}.per must be "tunnel" or "agent"`)
      }
      if ((rule.tool === undefined) === (rule.method === undefined)) {
        throw new Refusal(at, `${at} must name exactly one of "tool" and "method"`)
      }
      const on = rule.tool === undefined ? 'method' : 'tool'
      const pattern = globs([rule[on]], `${at}.${on}`, room)[0]!
      return Object.freeze({
        on,
        pattern,
        limit: integer(rule.limit, `${at}.limit`, 1, POLICY_LIMITS.maxLimit),
        perSeconds: integer(rule.per_seconds, `${at}.per_seconds`, 1, POLICY_LIMITS.maxPerSeconds),
        ...(rule.per === 'agent' ? { per: 'agent' as const } : {}),
      })
    }),
  )
}

function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new Refusal(field, `${field} must be a whole number from ${min} to ${max}`)
  }
  return value
}

function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new Refusal(field, `${field} must be true or false`)
  return value
}

function mode(value: unknown, field: string): RugPullMode {
  if (typeof value !== 'string' || !MODES.includes(value as RugPullMode)) {
    throw new Refusal(field, `${field} must be one of ${MODES.join(', ')}`)
  }
  return value as RugPullMode
}
