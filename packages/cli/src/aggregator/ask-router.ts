/**
 * Server→client requests (sampling, elicitation, roots/list) from upstreams, routed to an agent.
 * The request goes to the agent request that caused it, on that request's stream (`relatedTo`):
 * the one whose call's response stream carried it (HTTP upstreams), else the session whose calls
 * to that upstream are in flight. When calls of several sessions are in flight and nothing tells
 * which, it is refused: sending it to one of them could hand an agent another's data. With no
 * call in flight it goes to the most recently active session whose agent declared the capability
 * it needs, but for a `roots/list`, which is refused (../front/shared-server-roots.ts). The agent
 * sees an id of its session's own, and its answer goes back under the upstream's id.
 */
import {
  errorResponse,
  idKey,
  JSONRPC_CODE,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '@burrow/protocol'
import { missingAskCapability } from '../front/ask-capability.js'
import { ROOTS_LIST, SHARED_ROOTS_REFUSAL } from '../front/shared-server-roots.js'
import type { Logger } from '../log/logger.js'
import type { AggregatorSession } from './aggregator-session.js'
import type { CallOwner } from './pending-table.js'
import type { UpstreamLink } from './upstream-link.js'

/** Where a server→client request went. */
export interface Routed {
  readonly session: AggregatorSession
  readonly agentId: number
  readonly relatedTo: JsonRpcId | undefined
}

/** Routes server→client requests and their answers. */
export class AskRouter {
  readonly #sessions: ReadonlyMap<string, AggregatorSession>
  readonly #links: ReadonlyMap<string, UpstreamLink>
  readonly #log: Logger
  /** `upstream \n idKey(upstream's id)` → where it went. */
  readonly #routed = new Map<string, Routed>()

  constructor(
    sessions: ReadonlyMap<string, AggregatorSession>,
    links: ReadonlyMap<string, UpstreamLink>,
    logger: Logger,
  ) {
    this.#sessions = sessions
    this.#links = links
    this.#log = logger
  }

  /**
   * Hand `message` from `link` to an agent, or refuse it when no agent can answer. Returns where
   * it went, or undefined when it went nowhere.
   */
  route(
    link: UpstreamLink,
    message: JsonRpcRequest,
    owner: CallOwner | 'unplaced' | undefined,
  ): Routed | undefined {
    // A request reusing the id of one still unanswered is dropped: any answer to it, even a
    // refusal, would read as the first's, and the agent's answer to the first would be lost.
    if (this.#routed.has(key(link.name, message.id))) {
      const id = JSON.stringify(message.id)
      this.#log.warn(`upstream "${link.name}" reused the id ${id}; ignored`)
      return undefined
    }
    const caller = owner === 'unplaced' ? undefined : owner && this.#sessions.get(owner.sessionId)
    const live = caller && !caller.closed ? caller : undefined
    if (owner === 'unplaced' || (owner && !live)) {
      const reason =
        owner === 'unplaced'
          ? `calls of several agents are in flight at upstream "${link.name}" (or the call it ` +
            `came for has ended), and it does not say which one ${message.method} is for; ` +
            'it was not sent to any'
          : `the agent whose call raised ${message.method} has gone; it was not sent to another`
      this.#log.debug(`upstream "${link.name}" ${message.method} refused: ${reason}`)
      link.respond(errorResponse(message.id, JSONRPC_CODE.internalError, reason))
      return undefined
    }
    // Every agent shares the upstream's session: its roots are asked of the caller or nobody.
    if (message.method === ROOTS_LIST && !live) {
      this.#log.debug(`upstream "${link.name}" roots/list refused: it came during no call`)
      link.respond(errorResponse(message.id, JSONRPC_CODE.methodNotFound, SHARED_ROOTS_REFUSAL))
      return undefined
    }
    const missing = (s: AggregatorSession): string | undefined =>
      missingAskCapability(message.method, message.params, s.capabilities)
    const able = (s: AggregatorSession): boolean => !s.closed && missing(s) === undefined
    // The agent whose call caused the request answers it, or nobody: another agent's user did
    // not ask for it. Without a caller, the most recently active agent able to answer does.
    const session = live ? (able(live) ? live : undefined) : this.#mostRecentSession(able)
    if (!session) {
      const lacking = live && !live.closed ? missing(live) : undefined
      const reason = lacking
        ? `the agent did not declare the "${lacking}" capability ${message.method} needs`
        : live
          ? `the agent whose call raised ${message.method} has gone; it was not sent to another`
          : `no connected agent can answer ${message.method}`
      const code = lacking ? JSONRPC_CODE.methodNotFound : JSONRPC_CODE.internalError
      link.respond(errorResponse(message.id, code, reason))
      return undefined
    }
    const full = session.askRefusal()
    if (full !== null) {
      link.respond(errorResponse(message.id, JSONRPC_CODE.internalError, full))
      return undefined
    }
    const relatedTo = session === caller ? owner?.agentId : undefined
    const agentId = session.nextAskId()
    session.asks.set(idKey(agentId), { upstream: link.name, upstreamId: message.id })
    const routed: Routed = { session, agentId, relatedTo }
    this.#routed.set(key(link.name, message.id), routed)
    this.#log.debug(`upstream "${link.name}" ${message.method} → session ${session.id}`)
    session.sink.deliver({ ...message, id: agentId }, relatedTo)
    return routed
  }

  /** The agent of `session` answered one of the requests it holds. */
  answer(session: AggregatorSession, message: JsonRpcResponse): void {
    if (message.id === null) return
    const held = session.asks.get(idKey(message.id))
    if (!held) {
      this.#log.debug(`session ${session.id}: answer to unknown request ${String(message.id)}`)
      return
    }
    session.asks.delete(idKey(message.id))
    this.#routed.delete(key(held.upstream, held.upstreamId))
    this.#links.get(held.upstream)?.respond({ ...message, id: held.upstreamId })
  }

  /** The upstream no longer wants an answer: tell the agent holding the request. */
  ended(link: UpstreamLink, upstreamId: JsonRpcId, reason: string): void {
    const routed = this.#routed.get(key(link.name, upstreamId))
    if (!routed) return
    this.#routed.delete(key(link.name, upstreamId))
    routed.session.asks.delete(idKey(routed.agentId))
    const params = { requestId: routed.agentId, reason }
    routed.session.sink.deliver(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params },
      routed.relatedTo,
    )
  }

  /** The session ended: its open requests are answered with an error upstream. */
  dropSession(session: AggregatorSession): void {
    for (const held of session.asks.values()) {
      this.#routed.delete(key(held.upstream, held.upstreamId))
      const reason = 'the agent session ended before answering'
      const answer = errorResponse(held.upstreamId, JSONRPC_CODE.internalError, reason)
      this.#links.get(held.upstream)?.respond(answer)
    }
    session.asks.clear()
  }

  #mostRecentSession(able: (s: AggregatorSession) => boolean): AggregatorSession | undefined {
    let best: AggregatorSession | undefined
    for (const session of this.#sessions.values()) {
      if (able(session) && (!best || session.lastActive > best.lastActive)) best = session
    }
    return best
  }
}

function key(upstream: string, id: JsonRpcId): string {
  return `${upstream}\n${idKey(id)}`
}
