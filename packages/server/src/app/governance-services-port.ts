/** The governance port over the running governance services and the store. */
import type { Kysely } from 'kysely'
import { getCall, listCalls, type CallView } from '../governance/call-log.js'
import { metricsReport } from '../governance/metrics-report.js'
import type { GovernanceServices } from '../governance/open-governance.js'
import type { Database } from '../store/schema.js'
import { storedZeroKnowledge } from '../store/policy-store.js'
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
    setPolicy: (tunnelId, value, by, expectVersion) =>
      gov.policies.write(tunnelId, value, by, expectVersion),
    policyVersions: (tunnelId) => gov.policies.versions(tunnelId),
    // No body of a zero-knowledge tunnel is shown, whatever the state of its erasure (after the
    // policy's commit, in batches, taken up again when cut short; found by a review).
    async calls(tunnelId, filter) {
      const [page, hide] = await Promise.all([
        listCalls(db, tunnelId, filter),
        storedZeroKnowledge(db, tunnelId),
      ])
      return hide ? { ...page, calls: page.calls.map(withoutBodies) } : page
    },
    async call(tunnelId, callId) {
      const [call, hide] = await Promise.all([
        getCall(db, tunnelId, callId),
        storedZeroKnowledge(db, tunnelId),
      ])
      return hide && call !== undefined ? withoutBodies(call) : call
    },
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

/** `call` without its stored bodies. */
function withoutBodies(call: CallView): CallView {
  return { ...call, requestBody: null, responseBody: null }
}
