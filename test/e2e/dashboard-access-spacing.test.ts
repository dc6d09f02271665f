/**
 * The Access tab's spacing at 1280 and 390 px, as a reader sees it: the agent-token table no
 * longer touches the form under it, no two blocks of the page touch; a mode's description wraps
 * under its title, not under the radio button; the modes are a labelled group; a card's first
 * heading does not add its margin to the card's padding; the tunnel's URL sits on its own line
 * under its name instead of wrapping beside it. Driven in Chromium against a real burrowd.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'
import { createTunnelInBrowser, signUpInBrowser } from '../helpers/dashboard-flows.js'

/** What the page measures of its layout. */
interface Layout {
  readonly page: number
  readonly viewport: number
  /** Consecutive visible blocks of `main` closer than 8 px (or overlapping). */
  readonly touching: readonly string[]
  /** Lines of a mode's description that start left of its title. */
  readonly underRadio: readonly string[]
  /** Cards whose first visible child starts more than 24 px below the card's top. */
  readonly deepCards: readonly string[]
  /** How far right of the heading's left edge the URL starts (0: on its own line). */
  readonly urlIndent: number
}

const MEASURE = `(() => {
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '')
  const visible = (el) => el.offsetParent !== null && el.getBoundingClientRect().height > 0
  const blocks = [...document.querySelector('main').children].filter(visible)
  const touching = []
  for (let i = 1; i < blocks.length; i++) {
    const gap = blocks[i].getBoundingClientRect().top - blocks[i - 1].getBoundingClientRect().bottom
    if (gap < 8) touching.push(name(blocks[i - 1]) + ' / ' + name(blocks[i]) + ': ' + Math.round(gap))
  }
  const underRadio = [...document.querySelectorAll('label.choice')].flatMap((label) => {
    const title = label.querySelector('strong').getBoundingClientRect()
    return [...label.querySelector('.muted').getClientRects()]
      .filter((r) => r.left < title.left - 0.5)
      .map((r) => label.querySelector('strong').textContent + ' at ' + Math.round(r.left))
  })
  const deepCards = [...document.querySelectorAll('main .card')].filter(visible).flatMap((card) => {
    const first = [...card.children].find(visible)
    if (!first) return []
    const depth = first.getBoundingClientRect().top - card.getBoundingClientRect().top
    return depth > 24 ? [name(card) + ' > ' + name(first) + ': ' + Math.round(depth)] : []
  })
  const h1 = document.querySelector('main h1')
  const url = h1.querySelector('code').getBoundingClientRect()
  return {
    page: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
    touching,
    underRadio,
    deepCards,
    urlIndent: url.left - h1.getBoundingClientRect().left,
  }
})()`

describe('access tab: spacing', { skip: !hasChromium, timeout: 120_000 }, () => {
  let dashboard: DashboardInBrowser
  let page: Page
  let base: string
  let detail = ''

  before(async () => {
    dashboard = await startDashboardInBrowser()
    ;({ page, base } = dashboard)
    await signUpInBrowser(page, base, 'spacing')
    ;({ detail } = await createTunnelInBrowser(page, base, 'a tunnel with a longer name'))
  })

  after(async () => {
    await dashboard?.close()
  })

  const check = async (state: string) => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 })
      const l = await page.evaluate<Layout>(MEASURE)
      const at = `${state} at ${width}px: ${JSON.stringify(l)}`
      assert.ok(l.page <= l.viewport, `the page scrolls sideways, ${at}`)
      assert.deepEqual(l.touching, [], `blocks touch, ${at}`)
      assert.deepEqual(l.underRadio, [], `a description wraps under its radio, ${at}`)
      assert.deepEqual(l.deepCards, [], `a card's first line sits too low, ${at}`)
      assert.ok(Math.abs(l.urlIndent) < 1, `the URL wraps beside the name, ${at}`)
    }
    await page.setViewportSize({ width: 1280, height: 900 })
  }

  it('oauth, with no agent token: the modes are a labelled group', async () => {
    await page.goto(`${base}${detail}/access`)
    assert.equal(await page.textContent('#access-form fieldset legend'), 'Access mode')
    assert.equal(await page.locator('#access-form fieldset input[type=radio]').count(), 3)
    await check('oauth')
  })

  it('token, a new token shown, a table of tokens and the form under it', async () => {
    await page.check('#access-form input[name=mode][value=token]')
    await Promise.all([
      page.waitForURL(/\/access\?notice=saved$/),
      page.click('#access-form button[type=submit]'),
    ])
    for (const name of ['laptop', 'ci']) {
      await page.fill('#agent-token-name', name)
      await page.click('form[action$="/agent-tokens"] button[type=submit]')
      await page.waitForSelector('#agent-token-secret')
    }
    await check('token, new token')
    await page.goto(`${base}${detail}/access`)
    assert.equal(await page.locator('#agent-tokens tbody tr').count(), 2)
    await check('token')
  })

  it('public, with its warning', async () => {
    await page.check('#access-form input[name=mode][value=public]')
    await Promise.all([
      page.waitForURL(/\/access\?notice=saved$/),
      page.click('#access-form button[type=submit]'),
    ])
    assert.equal(await page.locator('#public-warning').count(), 1)
    await check('public')
  })

  it('hostile: a refused allowlist of many long lines keeps the layout', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `not-an-address-${'x'.repeat(30)}-${i}`)
    await page.fill('#allow-ips', lines.join('\n'))
    await page.click('#access-form button[type=submit]')
    await page.waitForSelector('.notice.error')
    assert.equal(await page.inputValue('#allow-ips'), lines.join('\n'))
    await check('refused allowlist')
  })
})
