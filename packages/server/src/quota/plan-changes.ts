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
 * (Free for an account gone); of reads for one account that overlap, only the newest is told (two
 * plan changes in a row, read out of order, left the first). A failed read is logged: the streams
 * keep their limits.
 */
export function followPlanChanges(
  events: Pick<ClusterEvents, 'subscribe'>,
  gate: QuotaGate,
  planOf: (accountId: string) => Promise<PlanId | undefined>,
  log: Logger,
): void {
  /** The newest read asked for each account: an older one answering after it is not applied. */
  const newest = new Map<string, number>()
  let reads = 0
  events.subscribe((event) => {
    if (event.type !== 'account' || !gate.streamsOf(event.accountId)) return
    const { accountId } = event
    const read = ++reads
    newest.set(accountId, read)
    planOf(accountId)
      .then((plan) => {
        if (newest.get(accountId) !== read) return undefined
        newest.delete(accountId)
        return gate.planChanged(accountId, plan ?? 'free')
      })
      .catch((error: Error) => {
        if (newest.get(accountId) === read) newest.delete(accountId)
        log.warn(`quota: the plan of ${accountId} could not be read: ${error.message}`)
      })
  })
}
