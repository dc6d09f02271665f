/**
 * The dashboard's Domain tab of a tunnel: show its custom domain and the records to create, add
 * one, check its DNS now, remove it. Every route first checks the tunnel belongs to the
 * signed-in account; refusals (a bad name, the plan, another account's domain) are shown on the
 * page with the form as typed.
 */
import { HttpError } from '../../http/http-error.js'
import { redirect } from '../../http/responses.js'
import { tunnelView, withToolAlerts } from '../account-views.js'
import type { DomainsPort } from '../domains-port.js'
import { toHttpError } from '../store-error-status.js'
import type { DashboardKit, DashboardRequest, DashboardRoute } from './dashboard-kit.js'
import { domainPage } from './domain-page.js'
import type { Notice } from './layout.js'
import { planLimitNotice } from './plan-limit-notice.js'

/** The routes under `/dashboard/tunnels/:id/domain`; none when burrowd runs without domains. */
export function domainRoutes(kit: DashboardKit): DashboardRoute[] {
  const { svc } = kit
  const port: DomainsPort | undefined = svc.domains
  if (port === undefined) return []

  const found = async (c: DashboardRequest) => {
    const t = await svc.tunnels.get(c.account.id, c.params[0] ?? '')
    if (!t) throw new HttpError(404, 'not_found', 'No such tunnel in your account.')
    const [view] = await withToolAlerts(svc, c.account.id, [tunnelView(svc, c.account, t)])
    return view!
  }

  const render = async (
    c: DashboardRequest,
    status: number,
    notices: readonly Notice[],
    typed?: string,
  ) => {
    const tunnel = await found(c)
    const [domain] = await port.list(c.account.id, tunnel.id)
    kit.html(
      c.res,
      status,
      domainPage({
        viewer: c.viewer,
        tunnel,
        plan: c.account.plan,
        domain: domain ?? null,
        notices,
        ...(typed !== undefined ? { typed } : {}),
      }),
    )
  }

  const show = (c: DashboardRequest) => render(c, 200, kit.notices(c))

  const add = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    const t = await found(c)
    const typed = (form.get('domain') ?? '').slice(0, 253)
    try {
      await port.add(c.account.id, t.id, form.get('domain') ?? '')
    } catch (err) {
      const e = toHttpError(err)
      const text = e.status === 402 ? planLimitNotice(e.message) : e.message
      return render(c, e.status, [{ kind: 'error', text }], typed)
    }
    redirect(c.res, `/dashboard/tunnels/${t.id}/domain?notice=domain_added`)
  }

  const verify = async (c: DashboardRequest) => {
    await kit.form(c)
    const t = await found(c)
    const [domain] = await port.list(c.account.id, t.id)
    if (!domain) throw new HttpError(404, 'not_found', 'This tunnel has no custom domain.')
    const checked = await port.verify(c.account.id, t.id, domain.domain)
    const notice = checked?.state === 'verified' ? 'domain_verified' : 'domain_pending'
    redirect(c.res, `/dashboard/tunnels/${t.id}/domain?notice=${notice}`)
  }

  const remove = async (c: DashboardRequest) => {
    await kit.form(c)
    const t = await found(c)
    const [domain] = await port.list(c.account.id, t.id)
    if (domain) await port.remove(c.account.id, t.id, domain.domain)
    redirect(c.res, `/dashboard/tunnels/${t.id}/domain?notice=domain_removed`)
  }

  const base = '^\\/dashboard\\/tunnels\\/([\\w-]+)\\/domain'
  return [
    { method: 'GET', pattern: new RegExp(`${base}$`), handler: show },
    { method: 'POST', pattern: new RegExp(`${base}$`), handler: add },
    { method: 'POST', pattern: new RegExp(`${base}\\/verify$`), handler: verify },
    { method: 'POST', pattern: new RegExp(`${base}\\/remove$`), handler: remove },
  ]
}
