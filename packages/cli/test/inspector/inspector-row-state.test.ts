/**
 * How the inspector's traffic table marks a finished exchange, in a real browser (headless
 * Chromium through playwright-core): a POST the agent abandoned is marked failed (red), a GET
 * stream the agent closed is not, since hanging up is how such a stream ends.
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { chromium, type Browser } from 'playwright-core'
import { startInspector, type Inspector } from '../../src/inspector/inspector-server.js'
import { TrafficRecorder } from '../../src/inspector/traffic-recorder.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run']

function recordAborted(recorder: TrafficRecorder, method: string): number {
  const recording = recorder.start({
    method,
    path: '/mcp',
    headers: { accept: 'text/event-stream' },
    body: new Uint8Array(),
    signal: new AbortController().signal,
  })
  recording.head(200, { 'content-type': 'text/event-stream' })
  recording.finish('aborted', 'the agent disconnected before the end')
  return recording.summary().id
}

describe('inspector rows of exchanges the agent ended', { skip: !existsSync(CHROMIUM) }, () => {
  let browser: Browser
  let inspector: Inspector
  const recorder = new TrafficRecorder()

  before(async () => {
    inspector = await startInspector({
      addr: '127.0.0.1:0',
      addrExplicit: true,
      token: null,
      admin: false,
      recorder,
      replay: () => Promise.reject(new Error('no replay in this test')),
    })
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  })

  after(async () => {
    await browser?.close()
    await inspector?.close()
  })

  it('marks an abandoned POST failed and a GET stream the agent closed not', async () => {
    const stream = recordAborted(recorder, 'GET')
    const call = recordAborted(recorder, 'POST')
    const page = await browser.newPage()
    try {
      await page.goto(inspector.url)
      await page.locator(`#rows tr[data-id="${call}"]`).waitFor()
      await page.locator(`#rows tr[data-id="${stream}"]`).waitFor()
      const classOf = async (id: number): Promise<string> =>
        (await page.locator(`#rows tr[data-id="${id}"]`).getAttribute('class')) ?? ''
      assert.match(await classOf(call), /\bfailed\b/)
      assert.doesNotMatch(await classOf(stream), /\bfailed\b/)
      assert.equal(
        await page.locator(`#rows tr[data-id="${stream}"] td.method`).innerText(),
        'GET stream',
      )
    } finally {
      await page.close()
    }
  })
})
