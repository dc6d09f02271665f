/**
 * Which agent each URL-mode elicitation of an upstream went to, so that the upstream's
 * `notifications/elicitation/complete` reaches that agent alone. A server starts one either by
 * asking (`elicitation/create` with `mode: "url"`) or by answering a call with the
 * URL-elicitation-required error (-32042, its `data.elicitations`); it names each by an
 * `elicitationId` of its own. Before, the completion went to every session of the server, so
 * other agents learnt the id and that it completed. A completion nobody was sent is dropped.
 *
 * Bounded: at most `limit` remembered at once (the oldest forgotten first, as an agent may never
 * finish one), ids of at most `MAX_ELICITATION_ID_LENGTH` characters (a longer one is not
 * remembered, and its completion is dropped).
 */
import type { JsonRpcId } from '@burrow/protocol'

/** The JSON-RPC error code of the URL-elicitation-required error (MCP 2025-11-25). */
export const URL_ELICITATION_REQUIRED = -32042

/** Longest `elicitationId` remembered, in UTF-16 code units. */
export const MAX_ELICITATION_ID_LENGTH = 1_024

/** Default bound of what is remembered, across upstreams and sessions. */
export const DEFAULT_URL_ELICITATION_LIMIT = 10_000

/** Where an elicitation went: the session, and the agent request it came with, if any. */
export interface ElicitationAgent {
  readonly sessionId: string
  readonly relatedTo: JsonRpcId | undefined
}

/** URL-mode elicitations of every upstream → the agent each went to. */
export class UrlElicitations {
  readonly #limit: number
  /** `upstream \n elicitationId` → where it went, oldest first. */
  readonly #to = new Map<string, ElicitationAgent>()

  constructor(limit: number = DEFAULT_URL_ELICITATION_LIMIT) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('url elicitations need room')
    this.#limit = limit
  }

  /** How many are remembered. */
  get size(): number {
    return this.#to.size
  }

  /** `upstream`'s elicitation `id` went to `agent` (a later one of the same id replaces it). */
  note(upstream: string, id: unknown, agent: ElicitationAgent): void {
    if (typeof id !== 'string' || id === '' || id.length > MAX_ELICITATION_ID_LENGTH) return
    const k = key(upstream, id)
    this.#to.delete(k)
    if (this.#to.size >= this.#limit) {
      const oldest = this.#to.keys().next().value
      if (oldest !== undefined) this.#to.delete(oldest)
    }
    this.#to.set(k, agent)
  }

  /** Where `upstream`'s elicitation `id` went, forgotten now (it completes once); or undefined. */
  take(upstream: string, id: unknown): ElicitationAgent | undefined {
    if (typeof id !== 'string' || id.length > MAX_ELICITATION_ID_LENGTH) return undefined
    const k = key(upstream, id)
    const agent = this.#to.get(k)
    this.#to.delete(k)
    return agent
  }

  /** Forget every elicitation (the server is gone, and its elicitations with it). */
  clear(): void {
    this.#to.clear()
  }

  /** Forget every elicitation that went to `sessionId` (the session ended). */
  dropSession(sessionId: string): void {
    for (const [k, agent] of this.#to) if (agent.sessionId === sessionId) this.#to.delete(k)
  }
}

/**
 * The id of the URL-mode elicitation an `elicitation/create` request starts (`''` when it names
 * none, which no completion can name either); undefined when it is not one.
 */
export function askedUrlElicitation(
  method: string,
  params: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  if (method !== 'elicitation/create' || params?.mode !== 'url') return undefined
  return typeof params.elicitationId === 'string' ? params.elicitationId : ''
}

/** The ids of the URL-mode elicitations a -32042 error's `data.elicitations` lists. */
export function requiredUrlElicitations(error: {
  readonly code: number
  readonly data?: unknown
}): string[] {
  if (error.code !== URL_ELICITATION_REQUIRED) return []
  const data = error.data
  if (typeof data !== 'object' || data === null) return []
  const list = (data as { elicitations?: unknown }).elicitations
  if (!Array.isArray(list)) return []
  const ids: string[] = []
  // An error lists a few; read no more than the bound holds.
  for (const item of list.slice(0, DEFAULT_URL_ELICITATION_LIMIT)) {
    if (typeof item !== 'object' || item === null) continue
    const { mode, elicitationId } = item as { mode?: unknown; elicitationId?: unknown }
    if (mode === 'url' && typeof elicitationId === 'string') ids.push(elicitationId)
  }
  return ids
}

function key(upstream: string, id: string): string {
  return `${upstream}\n${id}`
}
