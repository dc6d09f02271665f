// Paying for a plan through the dev payment provider's checkout, as a customer's browser does:
// ask the API for a checkout link, post the checkout's Pay form, and wait for the provider's
// webhook to change the account's plan.
import assert from 'node:assert/strict'

/** An authenticated JSON API call. */
export type ApiCaller = <T>(
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; json: T }>

/** Buy `plan` (monthly) for the caller's account on the burrowd at `base`. */
export async function buyPlan(base: string, api: ApiCaller, plan: 'pro' | 'scale'): Promise<void> {
  const checkout = await api<{ checkout_url: string }>('POST', '/api/billing/checkout', { plan })
  assert.equal(checkout.status, 201, JSON.stringify(checkout.json))
  const txn = new URL(checkout.json.checkout_url).searchParams.get('_ptxn') ?? ''
  const paid = await fetch(`${base}/dev/paddle/checkout/pay`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _ptxn: txn }),
  })
  assert.ok(paid.status < 400, `the dev checkout took the payment (${paid.status})`)
  while ((await api<{ plan: string }>('GET', '/api/account')).json.plan !== plan) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
