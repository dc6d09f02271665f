/**
 * The dashboard's account pages besides tunnels: billing (checkout, cancel, billing cycle, a
 * change between paid plans after the provider's proration is shown), API
 * tokens (create, shown once; revoke) and webhook endpoints (create, deliveries, enable, rotate the secret, delete).
 */
import { billingView } from '../account-views.js'
import { billingPage } from './billing-page.js'
import { planChangePage } from './plan-change-page.js'
import { parseCycle } from '../billing-fields.js'
import type { DashboardKit, DashboardRequest, DashboardRoute } from './dashboard-kit.js'
import { HttpError } from '../../http/http-error.js'
import { requestOrigin } from '../../http/request-origin.js'
import { redirect } from '../../http/responses.js'
import { toHttpError } from '../store-error-status.js'
import { tokensPage } from './tokens-page.js'
import { webhookPage, webhooksPage } from './webhooks-page.js'
import { asSentence } from './as-sentence.js'
import { withLiveCounts } from '../live-meters.js'

/** The billing routes under `/dashboard/billing`. */
export function billingRoutes(kit: DashboardKit): DashboardRoute[] {
  const { svc } = kit

  const show = async (c: DashboardRequest) => {
    const now = kit.now()
    const view = await billingView(svc, c.account, now)
    const meters = await withLiveCounts(view.meters, svc.liveUsage, now)
    kit.html(c.res, 200, billingPage(c.viewer, { ...view, meters }, kit.notices(c)))
  }

  const checkout = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    const plan = form.get('plan') ?? ''
    const cycle = parseCycle(form.get('cycle'))
    if (plan !== 'pro' && plan !== 'scale')
      throw new HttpError(400, 'invalid', 'Choose Pro or Scale.')
    if (c.account.plan !== 'free')
      throw new HttpError(
        409,
        'conflict',
        'You already have a paid plan; cancel it first or switch its billing cycle.',
      )
    const success = `${requestOrigin(c.req, kit.opts.https)}/dashboard/billing?notice=checkout`
    const account = { id: c.account.id, email: c.account.email }
    redirect(c.res, await svc.billing.checkoutUrl(account, plan, cycle, success))
  }

  const cancel = async (c: DashboardRequest) => {
    await kit.form(c)
    await svc.billing.cancel(c.account.id)
    redirect(c.res, '/dashboard/billing?notice=cancelled')
  }

  const cycle = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    await svc.billing.switchCycle(c.account.id, parseCycle(form.get('cycle')))
    redirect(c.res, '/dashboard/billing?notice=cycle')
  }

  /** The paid plan a change names, or a 400. */
  const paidPlan = (value: string | null): 'pro' | 'scale' => {
    if (value !== 'pro' && value !== 'scale') {
      throw new HttpError(400, 'invalid', 'Choose Pro or Scale.')
    }
    return value
  }

  const previewChange = async (c: DashboardRequest) => {
    const preview = await svc.billing.previewPlanChange(c.account.id, paidPlan(c.query.get('plan')))
    kit.html(c.res, 200, planChangePage(c.viewer, preview))
  }

  const change = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    await svc.billing.changePlan(c.account.id, paidPlan(form.get('plan')))
    svc.live.evictAccount(c.account.id)
    redirect(c.res, '/dashboard/billing?notice=plan_changed')
  }

  return [
    { method: 'GET', pattern: /^\/dashboard\/billing$/, handler: show },
    { method: 'GET', pattern: /^\/dashboard\/billing\/change$/, handler: previewChange },
    { method: 'POST', pattern: /^\/dashboard\/billing\/change$/, handler: change },
    { method: 'POST', pattern: /^\/dashboard\/billing\/checkout$/, handler: checkout },
    { method: 'POST', pattern: /^\/dashboard\/billing\/cancel$/, handler: cancel },
    { method: 'POST', pattern: /^\/dashboard\/billing\/cycle$/, handler: cycle },
  ]
}

/** The API token routes under `/dashboard/tokens`. */
export function tokenRoutes(kit: DashboardKit): DashboardRoute[] {
  const { svc } = kit

  const list = async (c: DashboardRequest) => {
    const tokens = await svc.tokens.list(c.account.id)
    kit.html(c.res, 200, tokensPage(c.viewer, tokens, { notices: kit.notices(c) }))
  }

  const create = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    try {
      const created = await svc.tokens.create(c.account.id, (form.get('name') ?? '').trim())
      const tokens = await svc.tokens.list(c.account.id)
      kit.html(
        c.res,
        201,
        tokensPage(c.viewer, tokens, {
          created: { name: created.token.name, secret: created.secret },
        }),
      )
    } catch (err) {
      const e = toHttpError(err)
      const tokens = await svc.tokens.list(c.account.id)
      kit.html(
        c.res,
        e.status,
        tokensPage(c.viewer, tokens, { notices: [{ kind: 'error', text: asSentence(e.message) }] }),
      )
    }
  }

  const revoke = async (c: DashboardRequest) => {
    await kit.form(c)
    if (!(await svc.tokens.revoke(c.account.id, c.params[0] ?? ''))) {
      throw new HttpError(404, 'not_found', 'No such token in your account.')
    }
    redirect(c.res, '/dashboard/tokens?notice=revoked')
  }

  return [
    { method: 'GET', pattern: /^\/dashboard\/tokens$/, handler: list },
    { method: 'POST', pattern: /^\/dashboard\/tokens$/, handler: create },
    { method: 'POST', pattern: /^\/dashboard\/tokens\/([\w-]+)\/revoke$/, handler: revoke },
  ]
}

/** The webhook endpoint routes under `/dashboard/webhooks`. */
export function webhookRoutes(kit: DashboardKit): DashboardRoute[] {
  const { svc } = kit
  const missing = () => new HttpError(404, 'not_found', 'No such webhook endpoint in your account.')

  const list = async (c: DashboardRequest) => {
    const endpoints = await svc.webhooks.list(c.account.id)
    kit.html(c.res, 200, webhooksPage(c.viewer, endpoints, kit.notices(c)))
  }

  const create = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    const url = (form.get('url') ?? '').trim()
    try {
      const created = await svc.webhooks.create(c.account.id, { url })
      redirect(c.res, `/dashboard/webhooks/${created.id}`)
    } catch (err) {
      const e = toHttpError(err)
      const endpoints = await svc.webhooks.list(c.account.id)
      kit.html(
        c.res,
        e.status,
        webhooksPage(c.viewer, endpoints, [{ kind: 'error', text: asSentence(e.message) }], {
          url,
        }),
      )
    }
  }

  const show = async (c: DashboardRequest) => {
    const id = c.params[0] ?? ''
    const endpoint = await svc.webhooks.get(c.account.id, id)
    if (!endpoint) throw missing()
    const deliveries = await svc.webhooks.deliveries(c.account.id, id)
    kit.html(c.res, 200, webhookPage(c.viewer, endpoint, deliveries, kit.notices(c)))
  }

  const enable = async (c: DashboardRequest) => {
    await kit.form(c)
    const id = c.params[0] ?? ''
    if (!(await svc.webhooks.enable(c.account.id, id))) throw missing()
    redirect(c.res, `/dashboard/webhooks/${id}?notice=endpoint_enabled`)
  }

  const rotate = async (c: DashboardRequest) => {
    await kit.form(c)
    const id = c.params[0] ?? ''
    if (!(await svc.webhooks.rotateSecret(c.account.id, id))) throw missing()
    redirect(c.res, `/dashboard/webhooks/${id}?notice=secret_rotated`)
  }

  const remove = async (c: DashboardRequest) => {
    await kit.form(c)
    if (!(await svc.webhooks.delete(c.account.id, c.params[0] ?? ''))) throw missing()
    redirect(c.res, '/dashboard/webhooks?notice=endpoint_deleted')
  }

  return [
    { method: 'GET', pattern: /^\/dashboard\/webhooks$/, handler: list },
    { method: 'POST', pattern: /^\/dashboard\/webhooks$/, handler: create },
    { method: 'GET', pattern: /^\/dashboard\/webhooks\/([\w-]+)$/, handler: show },
    { method: 'POST', pattern: /^\/dashboard\/webhooks\/([\w-]+)\/enable$/, handler: enable },
    {
      method: 'POST',
      pattern: /^\/dashboard\/webhooks\/([\w-]+)\/rotate-secret$/,
      handler: rotate,
    },
    { method: 'POST', pattern: /^\/dashboard\/webhooks\/([\w-]+)\/delete$/, handler: remove },
  ]
}
