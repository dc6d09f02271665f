// What a newcomer does first in the dashboard, driven in the browser: sign up, make a tunnel.
import type { Page } from 'playwright-core'

/** The password every browser test signs up with. */
export const TEST_PASSWORD = 'correct horse battery'

/** Sign up at `base` as `<name>@example.com` with account slug `name`; the page is then signed in. */
export async function signUpInBrowser(page: Page, base: string, name: string): Promise<void> {
  await page.goto(`${base}/signup`)
  await page.fill('#email', `${name}@example.com`)
  await page.fill('#password', TEST_PASSWORD)
  await page.fill('#slug', name)
  await Promise.all([
    page.waitForURL(`${base}/dashboard`),
    page.click('form[action="/signup"] button[type=submit]'),
  ])
}

/** A tunnel made from the dashboard: its key (shown once), public URL and details page. */
export interface BrowserTunnel {
  readonly key: string
  readonly publicUrl: string
  readonly detail: string
}

/** Make a tunnel named `name` from the dashboard the page is signed in to. */
export async function createTunnelInBrowser(
  page: Page,
  base: string,
  name: string,
): Promise<BrowserTunnel> {
  await page.fill('#create-tunnel input[name=name]', name)
  await Promise.all([
    page.waitForURL(`${base}/dashboard/tunnels`),
    page.click('#create-tunnel button[type=submit]'),
  ])
  return {
    key: (await page.textContent('#tunnel-key')) ?? '',
    publicUrl: (await page.textContent('#public-url')) ?? '',
    detail: (await page.getAttribute('a:text("Tunnel details")', 'href')) ?? '',
  }
}
