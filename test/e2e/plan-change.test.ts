/**
 * Pro → Scale and back in Chromium against a real burrowd on the dev payment provider (the Paddle
 * stand-in mounted at /dev/paddle): buy Pro at the dev checkout, press "Upgrade to Scale" on the
 * Scale card, see what the provider will charge for the rest of the period, confirm, and see
 * Scale in force (its limits included); then "Downgrade to Pro" shows the provider's credit.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'
import { signUp } from '../helpers/web-client.js'

/** Reload the billing page until the plan state says `pattern` (webhooks are asynchronous). */
async function planStateBecomes(page: Page, base: string, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + 15_000
  let text = ''
  while (Date.now() < deadline) {
    await page.goto(`${base}/dashboard/billing`)
    text = (await page.textContent('#plan-state')) ?? ''
    if (pattern.test(text)) return text
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`the plan state stayed "${text}"`)
}

describe(
  'changing between paid plans in a browser',
  { skip: !hasChromium, timeout: 120_000 },
  () => {
    let dashboard: DashboardInBrowser
    let page: Page
    let base: string

    before(async () => {
      dashboard = await startDashboardInBrowser({ env: { BURROW_BILLING_PROVIDER: 'dev' } })
      ;({ page, base } = dashboard)
    })

    after(async () => {
      await dashboard?.close()
    })

    it('moves Pro → Scale with a prorated charge, and back with a credit', async () => {
      await page.goto(`${base}/signup`)
      await page.fill('#email', 'mover@example.com')
      await page.fill('#password', 'correct horse battery')
      await page.fill('#slug', 'mover')
      await Promise.all([page.waitForURL(`${base}/dashboard`), page.click('button[type=submit]')])

      // Free: the cards offer checkout, not a change.
      await page.goto(`${base}/dashboard/billing`)
      assert.equal(await page.locator('form[action="/dashboard/billing/change"]').count(), 0)
      await Promise.all([
        page.waitForURL(/\/dev\/paddle\//),
        page.click('[data-plan=pro] button[value=monthly]'),
      ])
      await Promise.all([
        page.waitForURL(`${base}/dashboard/billing?notice=checkout`),
        page.click('button[type=submit]'),
      ])
      await planStateBecomes(page, base, /Pro, monthly, renews/)

      // The Scale card has the button; the Pro card (current) has none.
      assert.equal(
        await page.locator('[data-plan=pro] form[action="/dashboard/billing/change"]').count(),
        0,
      )
      await Promise.all([
        page.waitForURL(`${base}/dashboard/billing/change?plan=scale`),
        page.click('[data-plan=scale] button:text("Upgrade to Scale")'),
      ])
      assert.equal(await page.getAttribute('#plan-change', 'data-action'), 'charge')
      // Bought moments ago: nearly the whole period is left, so nearly $39 − $12 is charged.
      const charged = Number(await page.getAttribute('#plan-change', 'data-amount'))
      assert.ok(charged > 2600 && charged <= 2700, `charged ${charged} cents`)
      assert.match((await page.textContent('#change-amount')) ?? '', /^\$2[67]\.\d\d$/)
      assert.match(
        (await page.textContent('#plan-change')) ?? '',
        /from the next renewal you pay \$39\/month/,
      )
      await Promise.all([
        page.waitForURL(`${base}/dashboard/billing?notice=plan_changed`),
        page.click('#plan-change button[type=submit]'),
      ])
      assert.match((await page.textContent('main')) ?? '', /Plan changed/)
      await planStateBecomes(page, base, /Scale, monthly, renews/)
      assert.equal(
        await page.getAttribute('#meters [data-meter=tunnels]', 'data-limit'),
        '20',
        'Scale limits apply at once',
      )

      await Promise.all([
        page.waitForURL(`${base}/dashboard/billing/change?plan=pro`),
        page.click('[data-plan=pro] button:text("Downgrade to Pro")'),
      ])
      assert.equal(await page.getAttribute('#plan-change', 'data-action'), 'credit')
      assert.match(
        (await page.textContent('#plan-change')) ?? '',
        /You get a credit of \$2[67]\.\d\d/,
      )
      await Promise.all([
        page.waitForURL(`${base}/dashboard/billing?notice=plan_changed`),
        page.click('#plan-change button[type=submit]'),
      ])
      await planStateBecomes(page, base, /Pro, monthly, renews/)
    })

    it('refuses hostile plan changes', async () => {
      for (const plan of ['free', 'enterprise', '', 'pro'.repeat(1000)]) {
        const res = await page.goto(`${base}/dashboard/billing/change?plan=${plan}`)
        assert.equal(res?.status(), 400, plan.slice(0, 20))
      }
      // Already on Pro: "change" to Pro is refused by the billing module.
      const same = await page.goto(`${base}/dashboard/billing/change?plan=pro`)
      assert.equal(same?.status(), 409)
      // A change without the session's CSRF token.
      const forged = await page.evaluate<number>(`fetch('/dashboard/billing/change', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'plan=scale',
    }).then((r) => r.status)`)
      assert.equal(forged, 403)
      await planStateBecomes(page, base, /Pro, monthly/)
    })

    it('previews and changes the plan through the JSON API', async () => {
      const user = await signUp(base, 'api-mover')
      type Preview = { action: string; amount_cents: number; from: string; to: string }
      const none = await user.api('GET', '/api/billing/plan-change?plan=scale')
      assert.equal(none.status, 409)
      assert.equal(none.json.error?.code, 'no_subscription')

      // Buy Pro at the dev checkout, as a browser would.
      const checkout = await user.api<{ checkout_url: string }>('POST', '/api/billing/checkout', {
        plan: 'pro',
        cycle: 'monthly',
      })
      assert.equal(checkout.status, 201)
      const link = checkout.json.checkout_url
      const html = await (await fetch(link)).text()
      const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1] ?? ''
      const fields = new URLSearchParams()
      for (const [, name, value] of html.matchAll(
        /<input type="hidden" name="([^"]+)" value="([^"]*)"/g,
      )) {
        fields.set(name!, value!.replaceAll('&amp;', '&'))
      }
      const paid = await fetch(new URL(action, link), {
        method: 'POST',
        body: fields,
        redirect: 'manual',
      })
      assert.equal(paid.status, 303)
      const deadline = Date.now() + 15_000
      while ((await user.api<{ plan: string }>('GET', '/api/billing')).json.plan !== 'pro') {
        assert.ok(Date.now() < deadline, 'Pro never applied')
        await new Promise((resolve) => setTimeout(resolve, 200))
      }

      const preview = await user.api<Preview>('GET', '/api/billing/plan-change?plan=scale')
      assert.equal(preview.status, 200, JSON.stringify(preview.json))
      assert.deepEqual(
        [preview.json.from, preview.json.to, preview.json.action],
        ['pro', 'scale', 'charge'],
      )
      assert.ok(preview.json.amount_cents > 2600 && preview.json.amount_cents <= 2700)
      const changed = await user.api<{ plan: string }>('POST', '/api/billing/plan', {
        plan: 'scale',
      })
      assert.equal(changed.status, 200, JSON.stringify(changed.json))
      assert.equal(changed.json.plan, 'scale')

      const same = await user.api('POST', '/api/billing/plan', { plan: 'scale' })
      assert.equal(same.status, 409)
      assert.equal(same.json.error?.code, 'same_plan')
      for (const body of [{ plan: 'free' }, { plan: 7 }, {}, { plan: 'scale'.repeat(10_000) }]) {
        const refused = await user.api('POST', '/api/billing/plan', body)
        assert.equal(refused.status, 400, JSON.stringify(body).slice(0, 40))
        assert.equal(refused.json.error?.code, 'invalid')
      }
      const badPreview = await user.api('GET', '/api/billing/plan-change?plan=enterprise')
      assert.equal(badPreview.status, 400)
      const notJson = await fetch(`${base}/api/billing/plan`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: '{"plan":',
      })
      assert.equal(notJson.status, 400)
      await notJson.arrayBuffer()
    })
  },
)
