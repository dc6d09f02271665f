/**
 * Which rate-limit buckets a request draws from: each `tool` rule counts the request's
 * `tools/call`s whose tool matches, each `method` rule its requests whose method matches (a
 * batch draws as many tokens as it holds matching calls). Also the refusal's reason, written
 * for an agent to act on.
 */
import type { ClassifiedMessage } from '@burrow/protocol'
import type { RateDemand } from './call-rate-limits.js'
import type { RateLimitRule } from './policy.js'
import { DecidedNames } from './decided-names.js'
import { matchWithin } from './glob-budget.js'
import { ScanBudget } from './scan-budget.js'
import { compileGlob, matchesGlob, MAX_MATCHED_NAME, type Glob } from './tool-rules.js'

/** A policy's rules, compiled once. */
export class RateLimitRules {
  readonly rules: readonly RateLimitRule[]
  readonly #globs: readonly Glob[]
  readonly #budget: ScanBudget
  /** Names matched before: whether each rule counts them, by rule (decided-names.ts). */
  readonly #decided = new DecidedNames<boolean[]>()

  /** `budget`: what matching may cost (the tunnel's scan budget, glob-budget.ts). */
  constructor(rules: readonly RateLimitRule[], budget: ScanBudget = new ScanBudget()) {
    this.rules = rules
    this.#globs = rules.map((r) => compileGlob(r.pattern))
    this.#budget = budget
  }

  /**
   * The demands of `requests` on tunnel `tunnelId`'s buckets (empty when no rule matches);
   * `agentId` (the grant or agent token the access gate admitted, null for public callers)
   * picks the bucket of rules that count per agent.
   */
  demands(
    tunnelId: string,
    requests: readonly ClassifiedMessage[],
    agentId: string | null = null,
  ): RateDemand[] {
    const out: RateDemand[] = []
    this.rules.forEach((rule, i) => {
      let n = 0
      for (const m of requests) {
        if (m.kind !== 'request') continue
        if (rule.on === 'method') {
          if (this.#matches(i, m.method)) n++
        } else if (m.method === 'tools/call' && m.target !== null) {
          if (this.#matches(i, m.target.name)) n++
        }
      }
      if (n === 0) return
      const perAgent = rule.per === 'agent'
      out.push({
        key: `${tunnelId}:${i}` + (perAgent ? `:agent:${agentId ?? 'public'}` : ''),
        shape: `${rule.on}:${rule.pattern}:${rule.limit}/${rule.perSeconds}:${rule.per ?? 'tunnel'}`,
        n,
        limit: rule.limit,
        perSeconds: rule.perSeconds,
        counts:
          (rule.on === 'tool'
            ? `calls to ${rule.pattern}`
            : `requests for ${rule.pattern === '*' ? 'any method' : rule.pattern}`) +
          (perAgent ? ' by each agent' : ''),
      })
    })
    return out
  }

  /**
   * Whether rule `i` counts `name`; a name too long to match, or that the tunnel's scan budget
   * cannot pay to match, counts for every rule.
   */
  #matches(i: number, name: string): boolean {
    if (name.length > MAX_MATCHED_NAME) return true
    let decided = this.#decided.get(name)
    const known = decided?.[i]
    if (known !== undefined) return known
    const matched = matchWithin(this.#budget, [this.#globs[i]!], name, matchesGlob)
    if (matched === null) return true
    // Kept only when the budget paid for the match: counting for want of it is not a decision.
    if (decided === undefined) this.#decided.set(name, (decided = []))
    decided[i] = matched
    return matched
  }

  /**
   * Why `demands` can never be admitted, or null: one asks for more tokens than its bucket holds
   * full (a batch of more calls than the limit), so no wait would make it fit.
   */
  static neverFits(demands: readonly RateDemand[]): string | null {
    const d = demands.find((x) => x.n > x.limit)
    if (d === undefined) return null
    const [noun, ...rest] = d.counts.split(' ')
    return (
      `${d.n} ${noun} ${rest.join(' ')} in one batch; at most ${d.limit} per ${d.perSeconds} s ` +
      'are allowed, so send fewer at once (waiting will not help)'
    )
  }

  /** Why demand `index` was refused, e.g. "10 calls per 60 s to search; retry in 12 s". */
  static reason(demands: readonly RateDemand[], index: number, retryAfterSecs: number): string {
    const d = demands[index]!
    const [noun, ...rest] = d.counts.split(' ')
    return `${d.limit} ${noun} per ${d.perSeconds} s ${rest.join(' ')}; retry in ${retryAfterSecs} s`
  }
}
