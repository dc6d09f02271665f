// Headless Chromium for dashboard tests (Debian's /usr/bin/chromium through playwright-core).
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

/** Where the browser is; tests skip when it is missing. */
export const CHROMIUM = '/usr/bin/chromium'

/** True when the browser is installed. */
export const hasChromium = existsSync(CHROMIUM)

/** Launch headless Chromium. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  })
}
