/** The governance port over the running governance services and the store. */
import type { Kysely } from 'kysely'
import { getCall, listCalls } from '../governance/call-log.js'
import { metricsReport } from '../governance/metrics-report.js'
import type { GovernanceServices } from '../governance/open-governance.js'
import type { Database } from '../store/schema.js'
import type { GovernancePort } from './governance-port.js'

/** `GovernancePort` for the dashboard and API. */
export function governancePort(db: Kysely<Database>, gov: GovernanceServices): GovernancePort {
  return {
    policy: (tunnelId) => gov.policies.read(tunnelId),
    setPolicy: (tunnelId, value, by) => gov.policies.write(tunnelId, value, by),
    policyVersions: (tunnelId) => gov.policies.versions(tunnelId),
    calls: (tunnelId, filter) => listCalls(db, tunnelId, filter),
    call: (tunnelId, callId) => getCall(db, tunnelId, callId),
    metrics: (tunnelId, window, now) => metricsReport(db, tunnelId, window, now),
    watch: (tunnelId, watcher) => gov.tail.watch(tunnelId, watcher),
  }
}
