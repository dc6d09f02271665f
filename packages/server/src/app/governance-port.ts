/**
 * What the dashboard and the JSON API read and change of a tunnel's governance: its policy (and
 * its versions), its call history, its per-method metrics, and its live tail. Every call names
 * a tunnel the caller's account owns; the routes check that first.
 */
import type { CallFilter, CallView } from '../governance/call-log.js'
import type { TailWatcher } from '../governance/live-tail.js'
import type { MetricsReport, MetricWindow } from '../governance/metrics-report.js'
import type { PolicyProblem } from '../governance/parse-policy.js'
import type { PolicyView } from '../governance/policies.js'

/** A tunnel's governance. */
export interface GovernancePort {
  policy(tunnelId: string): Promise<PolicyView>
  /** Validate and store; a problem changes nothing. */
  setPolicy(
    tunnelId: string,
    value: unknown,
    by: string,
  ): Promise<
    | { readonly ok: true; readonly view: PolicyView }
    | { readonly ok: false; readonly problem: PolicyProblem }
  >
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
}
