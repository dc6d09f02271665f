/**
 * Changing between paid plans through the JSON API: `GET /api/billing/plan-change?plan=` answers
 * what the payment provider would charge or credit now (its proration, nothing changes), and
 * `POST /api/billing/plan` `{plan}` makes the change; both as the dashboard's plan cards do.
 */
import { sendApiJson } from '../../http/responses.js'
import { readJsonObject } from '../../http/request-body.js'
import { parsePaidPlan } from '../billing-fields.js'
import type { PlanChangePreview, WebServices } from '../web-services.js'
import type { ApiCall } from './api-call.js'

/** The JSON form of a preview. */
export function planChangeJson(p: PlanChangePreview) {
  return {
    from: p.from,
    to: p.to,
    cycle: p.cycle,
    currency: p.currency,
    credit_cents: p.creditCents,
    charge_cents: p.chargeCents,
    action: p.action,
    amount_cents: p.amountCents,
  }
}

/** The two handlers; `afterChange` answers with the account's billing once the plan changed. */
export function planChangeApi(svc: WebServices, afterChange: (c: ApiCall) => Promise<void>) {
  return {
    async preview(c: ApiCall, query: URLSearchParams): Promise<void> {
      const preview = await svc.billing.previewPlanChange(
        c.account.id,
        parsePaidPlan(query.get('plan')),
      )
      sendApiJson(c.res, 200, planChangeJson(preview))
    },
    async change(c: ApiCall): Promise<void> {
      const body = await readJsonObject(c.req)
      await svc.billing.changePlan(c.account.id, parsePaidPlan(body.plan))
      svc.live.evictAccount(c.account.id)
      // The account as it is now: its plan changed.
      const account = await svc.accounts.get(c.account.id)
      await afterChange(account ? { ...c, account } : c)
    },
  }
}
