// What a browser test of the dashboard starts with: a burrowd, headless Chromium and one page.
import type { Browser, Page } from 'playwright-core'
import { launchBrowser } from './browser.js'
import { startService, type Service } from './stack.js'

/** A running burrowd with a browser page to drive its dashboard. */
export interface DashboardInBrowser {
  readonly service: Service
  /** `http://127.0.0.1:<port>`: where the dashboard is served. */
  readonly base: string
  readonly browser: Browser
  /** A page in a context of its own. */
  readonly page: Page
  /** Give the page's context the session cookie `cookie` (`name=value`): it is then signed in. */
  useSession(cookie: string): Promise<void>
  /** Close the browser, then the service. */
  close(): Promise<void>
}

/** What differs between the tests that start one. */
export interface DashboardInBrowserOptions {
  /** BURROW_* settings for the service. */
  readonly env?: NodeJS.ProcessEnv
  /** The page's size; Playwright's default (1280×720) when left out. */
  readonly viewport?: { readonly width: number; readonly height: number }
  /** Let the page read and write the clipboard. */
  readonly clipboard?: boolean
}

/** Start burrowd, launch Chromium and open a page; what started is closed again if a step fails. */
export async function startDashboardInBrowser(
  options: DashboardInBrowserOptions = {},
): Promise<DashboardInBrowser> {
  const service = await startService(options.env)
  const base = `http://127.0.0.1:${service.port}`
  let browser: Browser | undefined
  const close = async () => {
    try {
      await browser?.close()
    } finally {
      await service.close()
    }
  }
  try {
    browser = await launchBrowser()
    const context = await browser.newContext(options.viewport ? { viewport: options.viewport } : {})
    if (options.clipboard) {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
    }
    const page = await context.newPage()
    const useSession = async (cookie: string) => {
      const at = cookie.indexOf('=')
      await context.addCookies([
        // SameSite=Lax as burrowd sets it: a cookie without the attribute Chromium sends on
        // another site's top-level POST for two minutes (its "Lax+POST" allowance).
        { name: cookie.slice(0, at), value: cookie.slice(at + 1), url: base, sameSite: 'Lax' },
      ])
    }
    return { service, base, browser, page, useSession, close }
  } catch (err) {
    await close()
    throw err
  }
}
