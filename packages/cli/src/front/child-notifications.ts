/**
 * Which agents hear what a stdio server notifies. The server knows one client, so each
 * notification is routed to the agents it concerns: progress to the call that asked for it, a
 * cancellation to the agent the cancelled question went to, a resource update to its
 * subscribers, a log line to the sessions that hear its level (`log-audience.ts`), a task's
 * status to the task's agent, a URL-mode elicitation's completion to the agent the elicitation
 * went to; list changes and the like to every agent.
 */
import type { JsonRpcNotification } from '@burrow/protocol'
import type { Logger } from '../log/logger.js'
import type { CallTable } from './call-table.js'
import { logAudience } from './log-audience.js'
import type { LogLevels } from './log-levels.js'
import type { ResourceSubscriptions } from './resource-subscriptions.js'
import type { StdioSession } from './stdio-session.js'
import type { TaskOwners } from './task-owners.js'
import type { UrlElicitations } from './url-elicitations.js'

/** The one upstream's name in the subscriptions and elicitations tables. */
export const STDIO = 'stdio'

/** What a stdio backend knows of its agents, to route the server's notifications. */
export interface ChildAudiences {
  readonly sessions: ReadonlySet<StdioSession>
  readonly table: CallTable
  readonly subscriptions: ResourceSubscriptions
  readonly tasks: TaskOwners
  readonly levels: LogLevels
  readonly elicitations: UrlElicitations
  readonly log: Logger
}

/** Deliver the server's `message` to the agents it concerns. */
export function deliverChildNotification(
  message: JsonRpcNotification,
  heard: ChildAudiences,
): void {
  const params = message.params ?? {}
  const { sessions, table } = heard
  if (message.method === 'notifications/progress') {
    const call = table.call(params.progressToken)
    if (call?.agentToken === undefined) return
    const progress = { ...message, params: { ...params, progressToken: call.agentToken } }
    return call.session.sink.deliver(progress, call.agentId)
  }
  if (message.method === 'notifications/cancelled') {
    const ask = table.takeAsk(params.requestId)
    if (!ask) return
    const cancelled = { ...message, params: { ...params, requestId: ask.agentId } }
    return ask.session.sink.deliver(cancelled, ask.relatedTo)
  }
  if (message.method === 'notifications/resources/updated') {
    const subscribed = new Set(heard.subscriptions.subscribers(String(params.uri)))
    for (const session of sessions) {
      if (subscribed.has(session.id)) session.sink.deliver(message)
    }
    return
  }
  if (message.method === 'notifications/message') {
    const audience = logAudience(sessions, table.askCause(), heard.levels, params)
    for (const [session, relatedTo] of audience) session.sink.deliver(message, relatedTo)
    return
  }
  if (message.method === 'notifications/elicitation/complete') {
    // Only the agent the elicitation went to hears that it completed (url-elicitations.ts).
    const to = heard.elicitations.take(STDIO, params.elicitationId)
    const session = to && [...sessions].find((s) => s.id === to.sessionId)
    if (!session || session.closed) {
      heard.log.debug('stdio server: completion of an elicitation no agent holds')
      return
    }
    // A 2025 session hears it on its GET stream; a 2026-07-28 call's seat with its call.
    if (session.sink.askGroup === undefined) session.sink.deliver(message)
    else session.sink.deliver(message, to.relatedTo)
    return
  }
  // A task's status concerns its agent; list_changed and the like every agent.
  const audience =
    message.method === 'notifications/tasks/status'
      ? heard.tasks.audience(message, sessions)
      : sessions
  for (const session of audience) session.sink.deliver(message)
}
