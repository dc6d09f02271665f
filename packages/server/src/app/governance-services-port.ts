/** The governance port over the running governance services and the store. */
import type { Kysely } from 'kysely'
import { getCall, listCalls } from '../governance/call-log.js'
import { metricsReport } from '../governance/metrics-report.js'
import type { GovernanceServices } from '../governance/open-governance.js'
import type { Database } from '../store/schema.js'
import type { ToolPinsStore } from '../store/tool-pins-store.js'
import { AWAITING, toolsView } from '../governance/tools-view.js'
import type { GovernancePort } from './governance-port.js'

/** `GovernancePort` for the dashboard and API. */
export function governancePort(
  db: Kysely<Database>,
  toolPins: ToolPinsStore,
  gov: GovernanceServices,
  now: () => Date = () => new Date(),
): GovernancePort {
  return {
    policy: (tunnelId) => gov.policies.read(tunnelId),
    setPolicy: (tunnelId, value, by) => gov.policies.write(tunnelId, value, by),
    policyVersions: (tunnelId) => gov.policies.versions(tunnelId),
    calls: (tunnelId, filter) => listCalls(db, tunnelId, filter),
    call: (tunnelId, callId) => getCall(db, tunnelId, callId),
    metrics: (tunnelId, window, now) => metricsReport(db, tunnelId, window, now),
    watch: (tunnelId, watcher) => gov.tail.watch(tunnelId, watcher),
    tools: (tunnelId) => toolsView(toolPins, tunnelId),
    async decideTool(tunnelId, name, decision, by, expectHash, expectStatus) {
      const done = await toolPins.decide(tunnelId, name, decision, by, now(), {
        hash: expectHash,
        status: expectStatus,
      })
      if (done === 'decided') await gov.pins.changed(tunnelId)
      return done
    },
    toolsAwaiting: (accountId) => toolPins.awaiting(accountId, AWAITING),
  }
}
