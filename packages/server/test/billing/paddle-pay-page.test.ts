/**
 * Tests of the page Paddle's checkout links open (`/billing/pay?_ptxn=…`): it loads Paddle.js
 * with the client-side token (sandbox for `test_` tokens), passes on a success URL only when it
 * points back at the same host, escapes what it echoes, and says so when checkout is not set up.
 */

import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { PADDLE_PAY_PATH, servePaddlePayPage } from '../../src/billing/paddle-pay-page.js'

describe(`GET ${PADDLE_PAY_PATH}`, () => {
  let server: Server
  let base: string
  let token: string | null

  before(async () => {
    server = createServer((req, res) => servePaddlePayPage(req, res, token))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  after(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  const get = async (query: string) => {
    const res = await fetch(`${base}${PADDLE_PAY_PATH}${query}`)
    return { status: res.status, html: await res.text() }
  }

  it('loads Paddle.js with the token and a same-host success URL', async () => {
    token = 'test_0a1b2c'
    const page = await get(
      `?_ptxn=txn_01abc&success_url=${encodeURIComponent('/dashboard/billing?paid=1')}`,
    )
    assert.equal(page.status, 200)
    assert.match(
      page.html,
      /<script src="https:\/\/cdn\.paddle\.com\/paddle\/v2\/paddle\.js"><\/script>/,
    )
    assert.match(page.html, /data-token="test_0a1b2c"/)
    assert.match(page.html, /data-sandbox="yes"/)
    assert.ok(page.html.includes(`data-success-url="${base}/dashboard/billing?paid=1"`), page.html)
    assert.match(page.html, /Paddle\.Initialize\(/)
  })

  it('may not be framed by another site, as no page of the service may', async () => {
    token = 'live_0a1b2c'
    for (const query of ['?_ptxn=txn_01abc', '']) {
      const res = await fetch(`${base}${PADDLE_PAY_PATH}${query}`)
      await res.arrayBuffer()
      assert.equal(res.headers.get('x-frame-options'), 'DENY', query)
      assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/)
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
    }
  })

  it('uses the live environment for a live token', async () => {
    token = 'live_0a1b2c'
    assert.match((await get('?_ptxn=txn_01abc')).html, /data-sandbox=""/)
  })

  it('drops a success URL on another host or scheme (no open redirect), escaping what it echoes', async () => {
    token = 'live_0a1b2c'
    for (const success of ['https://evil.example/', '//evil.example/x', 'javascript:alert(1)']) {
      const page = await get(`?_ptxn=txn_01abc&success_url=${encodeURIComponent(success)}`)
      assert.match(page.html, /data-success-url=""/, success)
    }
    const quoted = await get(
      `?_ptxn=txn_01abc&success_url=${encodeURIComponent('/x"><script>alert(1)</script>')}`,
    )
    assert.ok(!quoted.html.includes('<script>alert(1)'), 'nothing unescaped')
  })

  it('refuses a link without a transaction, and says when checkout is not set up', async () => {
    token = 'live_0a1b2c'
    assert.equal((await get('')).status, 400)
    assert.equal((await get('?_ptxn=%3Cscript%3E')).status, 400)
    token = null
    const page = await get('?_ptxn=txn_01abc')
    assert.equal(page.status, 503)
    assert.match(page.html, /BURROW_PADDLE_CLIENT_TOKEN/)
  })
})
