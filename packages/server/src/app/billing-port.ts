/**
 * The dashboard's and API's view of billing, over the billing module's `BillingService`:
 * checkout links, cancelling, switching the billing cycle or the paid plan (with the provider's
 * proration previewed first), and the account's subscription.
 */
import type { BillingService } from '../billing/billing-service.js'
import type { SubscriptionView } from './billing-view.js'
import type { BillingPort } from './web-services.js'

/** `BillingPort` over the billing service. */
export function billingPort(service: BillingService): BillingPort {
  const checkoutOrigins =
    service.config.provider === 'paddle' ? [new URL(service.config.apiUrl).origin, 'https:'] : []
  return {
    checkoutOrigins,
    checkoutUrl: (account, plan, cycle, successUrl) =>
      service.checkoutUrl(account, plan, cycle, successUrl),
    cancel: async (accountId) => {
      await service.cancel(accountId)
    },
    switchCycle: async (accountId, cycle) => {
      await service.switchCycle(accountId, cycle)
    },
    previewPlanChange: async (accountId, plan) => {
      const { subscription, proration } = await service.previewPlanChange(accountId, plan)
      return { from: subscription.plan, to: plan, cycle: subscription.cycle, ...proration }
    },
    changePlan: async (accountId, plan) => {
      await service.changePlan(accountId, plan)
    },
    subscription: async (accountId): Promise<SubscriptionView | null> => {
      const status = await service.status(accountId)
      const sub = status.subscription
      if (!sub) return null
      return {
        plan: sub.plan,
        cycle: sub.cycle,
        state: status.state === 'none' ? 'free' : status.state,
        periodEndsAt: sub.periodEndsAt,
        cancelsAt: sub.cancelsAt,
      }
    },
  }
}
