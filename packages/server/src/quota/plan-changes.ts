/**
 * Responses still streaming follow their account's plan. When an account's plan may have changed
 * (the cluster's `account` event, which billing publishes after every plan change and the expiry
 * sweep after every paid period that ended), the quota gate is told the plan in force now, so a
 * response admitted under a higher plan is cut by the lower one's bandwidth limit
 * (`QuotaGate.planChanged`). The plan is read only for accounts with a response streaming here.
 */
import type { Logger } from '@burrow/protocol'
import type { ClusterEvents } from '../cluster/cluster-events.js'
import type { PlanId } from '../plans.js'
import type { QuotaGate } from './quota-gate.js'

/**
 * Tell `gate` the plan `planOf` reads for each account an `account` event of `events` names
 * (Free for an account gone). A failed read is logged: the streams keep their limits.
 */
export function followPlanChanges(
  events: Pick<ClusterEvents, 'subscribe'>,
  gate: QuotaGate,
  planOf: (accountId: string) => Promise<PlanId | undefined>,
  log: Logger,
): void {
  events.subscribe((event) => {
    if (event.type !== 'account' || !gate.streamsOf(event.accountId)) return
    const { accountId } = event
    planOf(accountId)
      .then((plan) => gate.planChanged(accountId, plan ?? 'free'))
      .catch((error: Error) =>
        log.warn(`quota: the plan of ${accountId} could not be read: ${error.message}`),
      )
  })
}
