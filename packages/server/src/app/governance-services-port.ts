/** The governance port over the running governance services and the store. */
import type { Kysely } from 'kysely'
import { getCall, listCalls, type CallView } from '../governance/call-log.js'
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
    async calls(tunnelId, filter) {
      const [page, hide] = await Promise.all([
        listCalls(db, tunnelId, filter),
        zeroKnowledge(db, tunnelId),
      ])
      return hide ? { ...page, calls: page.calls.map(withoutBodies) } : page
    },
    async call(tunnelId, callId) {
      const [call, hide] = await Promise.all([
        getCall(db, tunnelId, callId),
        zeroKnowledge(db, tunnelId),
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

/**
 * Whether `tunnelId`'s stored policy is in zero-knowledge mode now: its history's bodies are not
 * shown, whether or not their erasure is done (it runs after the policy's commit, in batches, and
 * may be cut short and taken up again; found by a review).
 */
async function zeroKnowledge(db: Kysely<Database>, tunnelId: string): Promise<boolean> {
  const row = await db
    .selectFrom('tunnel_policies')
    .select('document')
    .where('tunnel_id', '=', tunnelId)
    .executeTakeFirst()
  if (row === undefined) return false
  try {
    return (JSON.parse(row.document) as { zero_knowledge?: unknown }).zero_knowledge === true
  } catch {
    return false
  }
}

/** `call` without its stored bodies. */
function withoutBodies(call: CallView): CallView {
  return { ...call, requestBody: null, responseBody: null }
}
