/**
 * Outbound webhooks as `burrowd serve` runs them: the endpoint store for the dashboard and API,
 * a dispatcher polling the outbox (and woken at once when this process queues an event), the
 * `quota.warning` emitter the quota code calls when a counter crosses 80%, and the
 * `tool.changed` emitter rug-pull protection calls.
 */

import type { Logger } from '@burrow/protocol'
import type { Kysely } from 'kysely'
import type { Database } from '../store/schema.js'
import { emitQuotaWarning } from './quota-warning.js'
import type { QuotaWarningInput } from './quota-warning.js'
import {
  emitToolChanged,
  HourlyBudget,
  TOOL_CHANGED_PER_TUNNEL_PER_HOUR,
  type ToolChangedInput,
} from './tool-changed.js'
import { WebhookDispatcher } from './webhook-dispatcher.js'
import { WebhookEndpointStore } from './webhook-endpoint-store.js'

/** Options of `startWebhookService`. */
export interface WebhookServiceOptions {
  readonly db: Kysely<Database>
  /** `BURROW_WEBHOOKS_ALLOW_PRIVATE`: allow loopback and private receivers. */
  readonly allowPrivate: boolean
  readonly log: Logger
  /** `user-agent` of deliveries, e.g. `Burrow-Webhooks/0.1.0`. */
  readonly userAgent?: string
  /** How often the outbox is polled for retries and other nodes' events (default 1000 ms). */
  readonly pollMs?: number
  /** The clock (default the system's). */
  readonly now?: () => Date
  /** Told of every delivery attempt's outcome (for burrowd's metrics). */
  readonly onAttempt?: (outcome: 'delivered' | 'failed' | 'disabled') => void
}

/** The running webhook service. */
export interface WebhookService {
  /** Account-scoped endpoint management and delivery logs. */
  readonly endpoints: WebhookEndpointStore
  readonly dispatcher: WebhookDispatcher
  /**
   * Emit `quota.warning` once per tunnel, metric and month (see `emitQuotaWarning`), then wake
   * the dispatcher. A warning that cannot be sent (malformed) is logged and resolves false; one
   * the database could not record rejects, so that the quota code offers it again
   * (`quota/warning-offers.ts`): the crossing happens once a month. Safe to call again for the
   * same crossing. Runs off the request's path: a request being counted is never failed by it.
   */
  emitQuotaWarning(input: QuotaWarningInput): Promise<boolean>
  /** Emit `tool.changed` (rug-pull protection saw a change), then wake the dispatcher. Never rejects. */
  emitToolChanged(input: ToolChangedInput): Promise<boolean>
  /** Stop the dispatcher (attempts in flight are given back to the outbox). */
  stop(): Promise<void>
}

/** Create the endpoint store and start the dispatcher. */
export function startWebhookService(options: WebhookServiceOptions): WebhookService {
  const now = options.now ?? (() => new Date())
  const dispatcher = new WebhookDispatcher({
    db: options.db,
    allowPrivate: options.allowPrivate,
    log: options.log,
    now,
    ...(options.userAgent !== undefined ? { userAgent: options.userAgent } : {}),
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
  })
  dispatcher.start(options.pollMs ?? 1000)
  const toolChanges = new HourlyBudget(TOOL_CHANGED_PER_TUNNEL_PER_HOUR)
  return {
    endpoints: new WebhookEndpointStore(options.db, now, { allowPrivate: options.allowPrivate }),
    dispatcher,
    async emitQuotaWarning(input) {
      try {
        const fired = await emitQuotaWarning(options.db, input)
        if (fired) dispatcher.wake()
        return fired
      } catch (error) {
        // Only a malformed warning is given up here; the database's failures are passed on.
        if (!(error instanceof RangeError)) throw error
        options.log.error(
          `webhooks: could not record quota.warning for tunnel ${input.tunnelId} (${input.metric}, ${input.period}): ${String(error)}`,
        )
        return false
      }
    },
    async emitToolChanged(input) {
      if (!toolChanges.take(input.tunnelId, now().getTime())) {
        // Said once an hour per tunnel: a server that changes every tool would fill the log.
        if (toolChanges.refused(input.tunnelId) === 1) {
          options.log.info(
            `webhooks: tool.changed events of tunnel ${input.tunnelId} are not sent for the rest of this hour: it raised ${TOOL_CHANGED_PER_TUNNEL_PER_HOUR} (the dashboard shows every change)`,
          )
        }
        return false
      }
      try {
        const fired = await emitToolChanged(options.db, input)
        if (fired) dispatcher.wake()
        return fired
      } catch (error) {
        options.log.error(
          `webhooks: could not record tool.changed for tunnel ${input.tunnelId} (${input.tool}): ${String(error)}`,
        )
        return false
      }
    },
    stop: () => dispatcher.stop(),
  }
}
