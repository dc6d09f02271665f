/**
 * A tunnel's governance policy: which tools agents may see and call, rate limits, redaction, zero
 * knowledge and rug-pull protection. One JSON document per tunnel (snake_case on the wire, as
 * users write it); `parse-policy.ts` validates it, this file says what it means.
 */

/** A limit on calls: per tool (globs over the names agents see) or per method. */
export interface RateLimitRule {
  /** What the rule counts: calls to tools matching `pattern`, or requests whose method matches. */
  readonly on: 'tool' | 'method'
  readonly pattern: string
  /** Calls allowed per `perSeconds`. */
  readonly limit: number
  readonly perSeconds: number
  /**
   * Whose calls share the budget: the whole tunnel's (absent or `tunnel`), or each agent's own
   * (`agent`: each OAuth grant or agent token; public callers share one).
   */
  readonly per?: 'tunnel' | 'agent'
}

/** What is masked, where. */
export interface RedactionSettings {
  /** Object keys whose values are masked, at any depth, compared without case. */
  readonly keys: readonly string[]
  /** RE2 patterns whose matches are masked in any string. */
  readonly patterns: readonly string[]
  /** Mask what the built-in detectors recognise (cloud and API keys, tokens, private keys). */
  readonly detectSecrets: boolean
  /** Also mask what reaches the agent, not only what Burrow stores and shows. */
  readonly forwarded: boolean
}

/** Rug-pull protection: `off`, `alert` (tell the owner), `hold` (hide and refuse changed tools). */
export type RugPullMode = 'off' | 'alert' | 'hold'

/** A tunnel's policy, as the edge applies it. */
export interface Policy {
  readonly tools: { readonly allow: readonly string[]; readonly deny: readonly string[] }
  readonly rateLimits: readonly RateLimitRule[]
  readonly redaction: RedactionSettings
  /** Store and log no request or response content for the tunnel, only metadata. */
  readonly zeroKnowledge: boolean
  readonly rugPull: { readonly mode: RugPullMode }
}

/** The policy of a tunnel nobody configured: everything allowed, secrets masked in history. */
export const DEFAULT_POLICY: Policy = Object.freeze({
  tools: Object.freeze({ allow: Object.freeze(['*']), deny: Object.freeze([]) }),
  rateLimits: Object.freeze([]),
  redaction: Object.freeze({ keys: [], patterns: [], detectSecrets: true, forwarded: false }),
  zeroKnowledge: false,
  rugPull: Object.freeze({ mode: 'alert' as const }),
})

/** The policy as its JSON document (what the API returns and the Policy tab edits). */
export function policyDocument(policy: Policy): Record<string, unknown> {
  return {
    tools: { allow: [...policy.tools.allow], deny: [...policy.tools.deny] },
    rate_limits: policy.rateLimits.map((r) => ({
      [r.on]: r.pattern,
      limit: r.limit,
      per_seconds: r.perSeconds,
      ...(r.per === 'agent' ? { per: 'agent' } : {}),
    })),
    redaction: {
      keys: [...policy.redaction.keys],
      patterns: [...policy.redaction.patterns],
      detect_secrets: policy.redaction.detectSecrets,
      forwarded: policy.redaction.forwarded,
    },
    zero_knowledge: policy.zeroKnowledge,
    rug_pull: { mode: policy.rugPull.mode },
  }
}
