/**
 * What the dashboard and the JSON API read and change of a tunnel's governance: its policy (and
 * its versions), its call history, its per-method metrics, its live tail, and its pinned tools. Every call names
 * a tunnel the caller's account owns; the routes check that first.
 */
import type { CallFilter, CallView } from '../governance/call-log.js'
import type { TailWatcher } from '../governance/live-tail.js'
import type { MetricsReport, MetricWindow } from '../governance/metrics-report.js'
import type { PolicyView, PolicyWrite } from '../governance/policies.js'
import type { ToolsView } from '../governance/tools-view.js'
import type { Decided, PinStatus } from '../store/tool-pins-store.js'

/** A tunnel's governance. */
export interface GovernancePort {
  policy(tunnelId: string): Promise<PolicyView>
  /**
   * Validate and store; a problem changes nothing. With `expectVersion`, only while the policy
   * is still at that version (the one the document was edited from).
   */
  setPolicy(
    tunnelId: string,
    value: unknown,
    by: string,
    expectVersion?: number,
  ): Promise<PolicyWrite>
  policyVersions(
    tunnelId: string,
  ): Promise<readonly { version: number; changedAt: string; changedBy: string; document: string }[]>
  calls(
    tunnelId: string,
    filter: CallFilter,
  ): Promise<{ calls: CallView[]; nextCursor: string | null }>
  call(tunnelId: string, callId: string): Promise<CallView | undefined>
  metrics(tunnelId: string, window: MetricWindow, now: Date): Promise<MetricsReport>
  /** Watch the tunnel's calls live; null when it has too many watchers. */
  watch(tunnelId: string, watcher: TailWatcher): (() => void) | null
  /** The tunnel's tools as rug-pull protection pinned them. */
  tools(tunnelId: string): Promise<ToolsView>
  /**
   * Approve or reject tool `name`'s current definition (the one with `expectHash`, and while the
   * tool has `expectStatus`, when given); applies from the next request on every node.
   */
  decideTool(
    tunnelId: string,
    name: string,
    decision: 'approved' | 'rejected',
    by: string,
    expectHash: string | null,
    expectStatus?: PinStatus,
  ): Promise<Decided>
  /** How many tools wait for the owner, per tunnel of the account (absent: none). */
  toolsAwaiting(accountId: string): Promise<ReadonlyMap<string, number>>
}
