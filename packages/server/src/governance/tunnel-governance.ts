/**
 * A tunnel's policy compiled for the edge: the tool rules, the rate-limit rules and the redactor
 * built once per policy version, and the decisions the edge asks of them.
 */
import type { ClassifiedMessage } from '@burrow/protocol'
import type { Policy } from './policy.js'
import { RateLimitRules } from './rate-limit-demands.js'
import { Redactor } from './redactor.js'
import { ScanBudget } from './scan-budget.js'
import { ToolRules } from './tool-rules.js'

/** What the edge refuses before forwarding, and why. */
export interface ToolRefusal {
  readonly tool: string
  readonly reason: string
}

/** One tunnel's governance, as of `version` (0: the default policy). */
export class TunnelGovernance {
  readonly tunnelId: string
  readonly version: number
  readonly policy: Policy
  readonly tools: ToolRules
  readonly rates: RateLimitRules
  readonly redactor: Redactor

  /**
   * `budget`: what the tunnel's redaction patterns and globs may cost (kept across versions).
   */
  constructor(
    tunnelId: string,
    version: number,
    policy: Policy,
    budget: ScanBudget = new ScanBudget(),
  ) {
    this.tunnelId = tunnelId
    this.version = version
    this.policy = policy
    this.tools = new ToolRules(policy.tools, budget)
    this.rates = new RateLimitRules(policy.rateLimits, budget)
    this.redactor = new Redactor(policy.redaction, budget)
  }

  /** The first `tools/call` of `messages` to a tool the policy denies, or null. */
  deniedCall(messages: readonly ClassifiedMessage[]): ToolRefusal | null {
    if (this.tools.allowsAll) return null
    for (const m of messages) {
      if (m.kind !== 'request' || m.method !== 'tools/call' || m.target === null) continue
      if (!this.tools.allows(m.target.name)) {
        return {
          tool: m.target.name,
          reason:
            `the tool "${m.target.name}" is not allowed on this tunnel by its owner's policy; ` +
            'it is not in tools/list either',
        }
      }
    }
    return null
  }

  /**
   * Whether answers to `messages` must be rewritten before the agent sees them. `pinning`: rug
   * protection reads this request's `tools/list` answers (and may hide tools from them).
   */
  rewritesAnswers(messages: readonly ClassifiedMessage[], pinning = false): boolean {
    if (this.policy.redaction.forwarded && this.redactor.active) return true
    if (this.tools.allowsAll && !pinning) return false
    return messages.some((m) => m.kind === 'request' && m.method === 'tools/list')
  }
}
