/**
 * The dashboard's governance tabs of a tunnel: Traffic (history, one call, and the live tail as
 * server-sent events), Metrics, Policy (edit and save) and Tools (rug-pull review: approve or
 * reject). Every route first checks the tunnel belongs to the signed-in account.
 */
import { callFilter } from '../api/governance-api.js'
import type { CallFilter } from '../../governance/call-log.js'
import { METRIC_WINDOWS, type MetricWindow } from '../../governance/metrics-report.js'
import { HttpError } from '../../http/http-error.js'
import { redirect } from '../../http/responses.js'
import { tunnelView, withToolAlerts } from '../account-views.js'
import type { DashboardKit, DashboardRequest, DashboardRoute } from './dashboard-kit.js'
import { callPage, metricsPage, policyPage, trafficPage } from './governance-pages.js'
import { formToolName, toolsPage } from './tools-page.js'
import { STATUSES, type PinStatus } from '../../store/pin-rows.js'
import { serveLiveTail } from './live-tail-stream.js'
import type { RugPullMode } from '../../governance/policy.js'

/** The governance routes under `/dashboard/tunnels/:id`. */
export function governanceRoutes(kit: DashboardKit): DashboardRoute[] {
  const { svc } = kit
  const found = async (c: DashboardRequest) => {
    const t = await svc.tunnels.get(c.account.id, c.params[0] ?? '')
    if (!t) throw new HttpError(404, 'not_found', 'No such tunnel in your account.')
    const [view] = await withToolAlerts(svc, c.account.id, [tunnelView(svc, c.account, t)])
    return view!
  }

  const traffic = async (c: DashboardRequest) => {
    const t = await found(c)
    let filter: CallFilter
    try {
      filter = callFilter(c.query)
    } catch (err) {
      if (!(err instanceof HttpError)) throw err
      filter = {}
      c.query.delete('cursor')
      const notices = [{ kind: 'error' as const, text: err.message }]
      const page = await svc.governance.calls(t.id, filter)
      const policy = await svc.governance.policy(t.id)
      return kit.html(
        c.res,
        400,
        trafficPage({
          viewer: c.viewer,
          tunnel: t,
          calls: page.calls,
          filter,
          nextCursor: page.nextCursor,
          zeroKnowledge: policy.document.zero_knowledge === true,
          notices,
        }),
      )
    }
    const page = await svc.governance.calls(t.id, filter)
    const policy = await svc.governance.policy(t.id)
    kit.html(
      c.res,
      200,
      trafficPage({
        viewer: c.viewer,
        tunnel: t,
        calls: page.calls,
        filter,
        nextCursor: page.nextCursor,
        zeroKnowledge: policy.document.zero_knowledge === true,
      }),
    )
  }

  const call = async (c: DashboardRequest) => {
    const t = await found(c)
    const view = await svc.governance.call(t.id, c.params[1] ?? '')
    if (!view) throw new HttpError(404, 'not_found', 'No such call in this tunnel’s history.')
    kit.html(c.res, 200, callPage(c.viewer, t, view))
  }

  const stream = async (c: DashboardRequest) => {
    const t = await found(c)
    const token = c.caller.sessionToken
    serveLiveTail(c.res, {
      tunnelId: t.id,
      watch: (watcher) => svc.governance.watch(t.id, watcher),
      // Still this account's session and tunnel: a page whose session ended (signed out, a
      // password reset, an account recovered) or whose tunnel was deleted stops receiving calls.
      stillAllowed: async () =>
        (await svc.sessions.find(token))?.accountId === c.account.id &&
        Boolean(await svc.tunnels.get(c.account.id, t.id)),
      sessions: kit.tails,
      sessionToken: token,
    })
  }

  const metrics = async (c: DashboardRequest) => {
    const t = await found(c)
    const asked = c.query.get('window') ?? '24h'
    const window: MetricWindow = Object.hasOwn(METRIC_WINDOWS, asked)
      ? (asked as MetricWindow)
      : '24h'
    svc.metricsReports.spend(c.account.id)
    const report = await svc.governance.metrics(t.id, window, kit.now())
    kit.html(c.res, 200, metricsPage(c.viewer, t, report))
  }

  const policy = async (c: DashboardRequest) => {
    const t = await found(c)
    kit.html(
      c.res,
      200,
      policyPage({
        viewer: c.viewer,
        tunnel: t,
        view: await svc.governance.policy(t.id),
        versions: await svc.governance.policyVersions(t.id),
        notices: kit.notices(c),
      }),
    )
  }

  const savePolicy = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    const t = await found(c)
    const text = form.get('policy') ?? ''
    // The version the page was showing when the draft was edited from it: a save from a tab
    // opened before another change would undo that change unseen (zero-knowledge mode turned
    // off again, a deny rule dropped). A form without it (a page from before) is not checked.
    const from = /^\d{1,15}$/.exec(form.get('version') ?? '')?.[0]
    const expectVersion = from === undefined ? undefined : Number(from)
    const again = async (message: string, retryAfterSecs?: number, changed = false) => {
      // Too soon is no fault of the document: 429, and when to try again, as the API says.
      if (retryAfterSecs !== undefined) c.res.setHeader('retry-after', String(retryAfterSecs))
      return kit.html(
        c.res,
        changed ? 409 : retryAfterSecs !== undefined ? 429 : 400,
        policyPage({
          viewer: c.viewer,
          tunnel: t,
          view: await svc.governance.policy(t.id),
          versions: await svc.governance.policyVersions(t.id),
          draft: text,
          // Once told of the change, saving the draft again is a choice made knowing it.
          ...(changed || expectVersion === undefined ? {} : { draftVersion: expectVersion }),
          notices: [{ kind: 'error', text: message }],
        }),
      )
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (err) {
      return again(`The policy is not valid JSON: ${(err as Error).message}. Nothing was changed.`)
    }
    const by = `dashboard (${c.account.email})`
    const written = await svc.governance.setPolicy(t.id, value, by, expectVersion)
    if (!written.ok && written.changedSince !== undefined) {
      return again(
        `The policy was changed since this page showed version ${expectVersion}: it is now at version ${written.changedSince.version}. Nothing was changed. Your draft is below; compare it with the versions listed and save it again to replace the current policy.`,
        undefined,
        true,
      )
    }
    if (!written.ok) {
      const { field, message } = written.problem
      return again(`${field}: ${message}. Nothing was changed.`, written.retryAfterSecs)
    }
    redirect(c.res, `/dashboard/tunnels/${t.id}/policy?notice=policy`)
  }

  const tools = async (c: DashboardRequest) => {
    const t = await found(c)
    const [view, policy] = await Promise.all([
      svc.governance.tools(t.id),
      svc.governance.policy(t.id),
    ])
    const rug = policy.document.rug_pull as { mode?: RugPullMode } | undefined
    kit.html(
      c.res,
      200,
      toolsPage({
        viewer: c.viewer,
        tunnel: t,
        view,
        mode: rug?.mode ?? 'alert',
        zeroKnowledge: policy.document.zero_knowledge === true,
        notices: kit.notices(c),
      }),
    )
  }

  const decide = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    const t = await found(c)
    const name = formToolName(form.get('tool'))
    const status = form.get('status') ?? ''
    if (name === null || !(STATUSES as readonly string[]).includes(status)) {
      throw new HttpError(
        400,
        'invalid',
        'This form is not one the Tools tab sends now: reload the page and decide again.',
      )
    }
    const hash = form.get('hash') ?? ''
    const decision = form.get('decision') === 'rejected' ? 'rejected' : 'approved'
    const done = await svc.governance.decideTool(
      t.id,
      name,
      decision,
      `dashboard (${c.account.email})`,
      /^[0-9a-f]{64}$/.test(hash) ? hash : null,
      status as PinStatus,
    )
    if (done === 'unknown') throw new HttpError(404, 'not_found', 'No such tool in this tunnel.')
    // A Reject from a page older than a decision made elsewhere (another tab, the API) rejects
    // nothing: say so, not "Rejected" of a tool that agents may still see and call.
    const notice =
      done === 'stale'
        ? 'tool_stale'
        : done === 'not_pending'
          ? 'tool_not_pending'
          : decision === 'rejected'
            ? 'tool_rejected'
            : 'tool_approved'
    redirect(c.res, `/dashboard/tunnels/${t.id}/tools?notice=${notice}`)
  }

  const id = '([\\w-]+)'
  return [
    { method: 'GET', pattern: new RegExp(`^/dashboard/tunnels/${id}/tools$`), handler: tools },
    {
      method: 'POST',
      pattern: new RegExp(`^/dashboard/tunnels/${id}/tools/decide$`),
      handler: decide,
    },
    { method: 'GET', pattern: new RegExp(`^/dashboard/tunnels/${id}/traffic$`), handler: traffic },
    {
      method: 'GET',
      pattern: new RegExp(`^/dashboard/tunnels/${id}/traffic/stream$`),
      handler: stream,
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/dashboard/tunnels/${id}/traffic/${id}$`),
      handler: call,
    },
    { method: 'GET', pattern: new RegExp(`^/dashboard/tunnels/${id}/metrics$`), handler: metrics },
    { method: 'GET', pattern: new RegExp(`^/dashboard/tunnels/${id}/policy$`), handler: policy },
    {
      method: 'POST',
      pattern: new RegExp(`^/dashboard/tunnels/${id}/policy$`),
      handler: savePolicy,
    },
  ]
}
