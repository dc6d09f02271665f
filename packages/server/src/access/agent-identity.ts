/**
 * Who an admitted request came from, as the access gate established it: an OAuth grant, an agent
 * token, or nobody in particular (a public tunnel). Call history shows it.
 */

/** The caller of one admitted request. */
export interface AgentIdentity {
  /** `oauth`, `token` or `public`. */
  readonly kind: 'oauth' | 'token' | 'public'
  /** The grant (`grant_…`) or agent token (`agt_…`) id; null for public callers. */
  readonly id: string | null
  /** The client's or token's name, for people. */
  readonly name: string | null
}

/** How call history names `agent`: `<name> (<id>)`, or null for public callers. */
export function agentLabel(agent: AgentIdentity): string | null {
  if (agent.id === null) return null
  return `${agent.name ?? agent.kind} (${agent.id})`
}

/** The identity of a caller of a public tunnel. */
export const PUBLIC_CALLER: AgentIdentity = { kind: 'public', id: null, name: null }
