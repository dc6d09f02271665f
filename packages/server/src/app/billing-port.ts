/**
 * The dashboard's and API's view of billing, over the billing module's `BillingService`:
 * checkout links, cancelling, switching the billing cycle or the paid plan (with the provider's
 * proration previewed first), and the account's subscription.
 */
import type { BillingService } from '../billing/billing-service.js'
import { HttpError } from '../http/http-error.js'
import { localRateLimits, type RateLimits } from '../http/rate-limits.js'
import type { SubscriptionView } from './billing-view.js'
import type { BillingPort } from './web-services.js'

/**
 * Requests an account may make per hour (all nodes together) that ask the payment provider:
 * checkouts, plan changes, cancellations, cycle switches; and, counted apart, plan-change
 * previews (a GET, which another site can make a signed-in browser open, so it must not spend
 * the budget of the rest). Each checkout makes a transaction at the provider (and a row here); a
 * free account looping on checkout spent the provider API's rate limit, which the whole service
 * shares.
 */
export const PROVIDER_REQUESTS_PER_HOUR = 20

/**
 * `BillingPort` over the billing service. `stillActing` throws when the request's credential was
 * revoked since the request was authenticated (`store/still-acting.ts`): each change is asked of
 * the provider only after it, so a body sent after its API token was revoked (or its browser
 * signed out) changes nothing, as a write under the account's lock would not.
 */
export function billingPort(
  service: BillingService,
  now?: () => number,
  limits: RateLimits = localRateLimits,
  stillActing: (accountId: string) => Promise<void> = () => Promise.resolve(),
): BillingPort {
  const checkoutOrigins =
    service.config.provider === 'paddle' ? [new URL(service.config.apiUrl).origin, 'https:'] : []
  const budget = (name: string) =>
    limits.limiter(name, {
      capacity: PROVIDER_REQUESTS_PER_HOUR,
      perMs: 60 * 60_000,
      ...(now ? { now } : {}),
    })
  const changes = budget('billing.provider')
  const previews = budget('billing.previews')
  const spend = (accountId: string, limiter = changes): void => {
    const allowed = limiter.take(accountId)
    if (allowed.ok) return
    throw new HttpError(
      429,
      'rate_limited',
      `too many billing requests: ${PROVIDER_REQUESTS_PER_HOUR} an hour per account; try again in ` +
        `${Math.ceil(allowed.retryAfterSecs / 60)} min`,
      { retry_after_secs: allowed.retryAfterSecs },
    )
  }
  /** Before a change is asked of the provider: the credential still acts, and the budget allows. */
  const change = async (accountId: string): Promise<void> => {
    await stillActing(accountId)
    spend(accountId)
  }
  return {
    checkoutOrigins,
    checkoutUrl: async (account, plan, cycle, successUrl) => {
      await change(account.id)
      return service.checkoutUrl(account, plan, cycle, successUrl)
    },
    cancel: async (accountId) => {
      await change(accountId)
      await service.cancel(accountId)
    },
    switchCycle: async (accountId, cycle) => {
      await change(accountId)
      await service.switchCycle(accountId, cycle)
    },
    previewPlanChange: async (accountId, plan) => {
      spend(accountId, previews)
      const { subscription, proration } = await service.previewPlanChange(accountId, plan)
      return { from: subscription.plan, to: plan, cycle: subscription.cycle, ...proration }
    },
    changePlan: async (accountId, plan) => {
      await change(accountId)
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
        chargedBackAt: sub.chargedBackAt,
        fromCheckout: sub.fromCheckout,
      }
    },
    history: (accountId) => service.store.history(accountId),
  }
}
