/**
 * The dashboard's tunnel pages: the list, creating a tunnel (its key shown once), choosing which
 * tunnels serve after a downgrade, and one tunnel's page with this month's usage, recent calls,
 * rename, key rotation and delete. The list is at `/dashboard` and `/dashboard/tunnels`.
 */
import { tunnelView, tunnelViews, withAccessModes, withToolAlerts } from '../account-views.js'
import { withCustomUrls } from '../custom-url-views.js'
import type { DashboardKit, DashboardRequest, DashboardRoute } from './dashboard-kit.js'
import { HttpError } from '../../http/http-error.js'
import { redirect } from '../../http/responses.js'
import { toHttpError } from '../store-error-status.js'
import { keyOncePage, tunnelPage, tunnelsPage } from './tunnels-page.js'
import { RECENT_CALLS, tunnelActivity } from './tunnel-activity.js'
import { withLiveCounts } from '../live-meters.js'
import { urlFormOf } from './auth-pages.js'
import { planLimitNotice } from './plan-limit-notice.js'

/** The tunnel routes under `/dashboard`. */
export function tunnelRoutes(kit: DashboardKit): DashboardRoute[] {
  const { svc } = kit
  const broker = kit.opts.broker ?? null

  /** The tunnel named by the route, in the caller's account, or a 404. */
  const found = async (c: DashboardRequest) => {
    const t = await svc.tunnels.get(c.account.id, c.params[0] ?? '')
    if (!t) throw new HttpError(404, 'not_found', 'No such tunnel in your account.')
    return t
  }

  const list = async (c: DashboardRequest) => {
    const alerted = await withAccessModes(
      svc,
      await withToolAlerts(svc, c.account.id, await tunnelViews(svc, c.account)),
    )
    const tunnels = await withCustomUrls(svc, c.account.id, alerted)
    kit.html(
      c.res,
      200,
      tunnelsPage({
        viewer: c.viewer,
        plan: c.account.plan,
        tunnels,
        notices: kit.notices(c),
        urlForm: urlFormOf((sub, slug) => svc.publicUrl(sub, slug)),
      }),
    )
  }

  const create = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    const name = (form.get('name') ?? '').trim()
    const subdomain = (form.get('subdomain') ?? '').trim().toLowerCase()
    try {
      const created = await svc.tunnels.create(c.account.id, {
        ...(name ? { name } : {}),
        ...(subdomain ? { subdomain } : {}),
      })
      const [view] = await withAccessModes(svc, [tunnelView(svc, c.account, created.tunnel)])
      kit.html(c.res, 201, keyOncePage(c.viewer, view!, created.key, false, broker))
    } catch (err) {
      const e = toHttpError(err)
      const tunnels = await tunnelViews(svc, c.account)
      const text = e.status === 402 ? planLimitNotice(e.message) : e.message
      kit.html(
        c.res,
        e.status,
        tunnelsPage({
          viewer: c.viewer,
          plan: c.account.plan,
          tunnels,
          notices: [{ kind: 'error', text }],
          form: { name, subdomain },
          urlForm: urlFormOf((sub, slug) => svc.publicUrl(sub, slug)),
        }),
      )
    }
  }

  const chooseServing = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    await svc.tunnels.chooseServing(c.account.id, form.getAll('serving'))
    svc.live.evictAccount(c.account.id)
    redirect(c.res, '/dashboard?notice=serving')
  }

  const show = async (c: DashboardRequest) => {
    const t = await found(c)
    const views = await withAccessModes(
      svc,
      await withToolAlerts(svc, c.account.id, [tunnelView(svc, c.account, t)]),
    )
    const [view] = await withCustomUrls(svc, c.account.id, views)
    const now = kit.now()
    const [meters, recent] = await Promise.all([
      svc.meters(c.account.id, now).then((m) => withLiveCounts(m, svc.liveUsage, now)),
      svc.governance.calls(t.id, { limit: RECENT_CALLS }),
    ])
    const activity = tunnelActivity(t.id, c.account.plan, meters, recent.calls)
    kit.html(c.res, 200, tunnelPage(c.viewer, view!, kit.notices(c), activity))
  }

  const rename = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    const t = await found(c)
    const name = (form.get('name') ?? '').trim()
    await svc.tunnels.rename(c.account.id, t.id, name === '' ? null : name)
    redirect(c.res, `/dashboard/tunnels/${t.id}?notice=renamed`)
  }

  const rotate = async (c: DashboardRequest) => {
    await kit.form(c)
    const t = await found(c)
    svc.accessWrites.spend(c.account.id, t.id)
    const rotated = await svc.tunnels.rotateKey(c.account.id, t.id)
    const views = await withAccessModes(svc, [tunnelView(svc, c.account, rotated.tunnel)])
    const [view] = await withCustomUrls(svc, c.account.id, views)
    kit.html(c.res, 200, keyOncePage(c.viewer, view!, rotated.key, true, broker))
  }

  const remove = async (c: DashboardRequest) => {
    await kit.form(c)
    const t = await found(c)
    await svc.tunnels.delete(c.account.id, t.id)
    redirect(c.res, '/dashboard?notice=deleted')
  }

  return [
    { method: 'GET', pattern: /^\/dashboard$/, handler: list },
    { method: 'GET', pattern: /^\/dashboard\/tunnels$/, handler: list },
    { method: 'POST', pattern: /^\/dashboard\/tunnels$/, handler: create },
    { method: 'POST', pattern: /^\/dashboard\/tunnels\/serving$/, handler: chooseServing },
    { method: 'GET', pattern: /^\/dashboard\/tunnels\/([\w-]+)$/, handler: show },
    { method: 'POST', pattern: /^\/dashboard\/tunnels\/([\w-]+)\/rename$/, handler: rename },
    { method: 'POST', pattern: /^\/dashboard\/tunnels\/([\w-]+)\/rotate-key$/, handler: rotate },
    { method: 'POST', pattern: /^\/dashboard\/tunnels\/([\w-]+)\/delete$/, handler: remove },
  ]
}
