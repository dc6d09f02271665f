/**
 * Getting back into an account, end to end: real burrowd sending through a real SMTP server
 * (`smtp-server` on loopback), driven in Chromium: sign up and confirm the address from the
 * mailed link, forget the password and set a new one from the reset link (other browsers are
 * signed out, the link works once, a stranger's request does not void it), the same answer for
 * addresses without an account, an account someone else made with the address taken back by its
 * first reset, and hostile use of the forms. Then the dev outbox of a burrowd without SMTP, shown
 * only to this machine.
 */
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { hasChromium, launchBrowser } from '../helpers/browser.js'
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.js'
import { startService, type Service } from '../helpers/stack.js'
import { signUp } from '../helpers/web-client.js'

const PASSWORD = 'correct horse battery'
const NEW_PASSWORD = 'purple otter lamp'
/** The client address of the owner who takes a squatted account back (its own limits). */
const RECLAIMER = '198.51.100.77'

/** Sign in through the form; returns the final URL's path. */
async function signIn(page: Page, base: string, email: string, password: string): Promise<number> {
  await page.goto(`${base}/signin`)
  await page.fill('#email', email)
  await page.fill('#password', password)
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${base}/signin` && r.request().method() === 'POST'),
    page.click('form[action="/signin"] button[type=submit]'),
  ])
  await page.waitForLoadState()
  return response.status()
}

/** Sign up through the form as `<slug>@example.com`; the page ends on the dashboard, signed in. */
async function signUpIn(page: Page, base: string, slug: string): Promise<void> {
  await page.goto(`${base}/signup`)
  await page.fill('#email', `${slug}@example.com`)
  await page.fill('#password', PASSWORD)
  await page.fill('#slug', slug)
  await Promise.all([page.waitForURL(`${base}/dashboard`), page.click('button[type=submit]')])
}

/** A form post as a script would make it: the form's cookie and token, from `ip`. */
async function postForm(
  base: string,
  path: string,
  fields: Record<string, string>,
  ip = '127.0.0.1',
  formPath = path,
): Promise<Response> {
  return (await openForm(base, path, ip, formPath))(fields)
}

/** Load the form at `formPath` (its cookie and form token); returns how to post it to `path`. */
async function openForm(
  base: string,
  path: string,
  ip = '127.0.0.1',
  formPath = path,
): Promise<(fields: Record<string, string>) => Promise<Response>> {
  const form = await fetch(`${base}${formPath}`, { headers: { 'x-forwarded-for': ip } })
  const cookie = form.headers.getSetCookie()[0]?.split(';', 1)[0] ?? ''
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? ''
  return (fields) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie,
        'x-forwarded-for': ip,
      },
      body: new URLSearchParams({ _csrf: csrf, ...fields }),
    })
}

describe('account recovery through SMTP', { skip: !hasChromium, timeout: 180_000 }, () => {
  let inbox: SmtpInbox
  let service: Service
  let browser: Browser
  let base: string

  before(async () => {
    inbox = await startSmtpInbox()
    service = await startService({
      BURROW_SMTP_URL: inbox.url,
      BURROW_MAIL_FROM: 'Burrow Tests <tunnels@burrow.test>',
    })
    base = `http://127.0.0.1:${service.port}`
    browser = await launchBrowser()
  })

  after(async () => {
    await browser?.close()
    await service?.close()
    await inbox?.close()
  })

  it('confirms the address from the link mailed at sign-up', async () => {
    const page = await (await browser.newContext()).newPage()
    await signUpIn(page, base, 'owner')
    assert.match((await page.textContent('#verify-banner')) ?? '', /confirm your email address/)

    const mail = await inbox.waitFor('owner@example.com', /Confirm your email address/)
    assert.match(mail.text, /works once, for three days/)
    const link = inbox.link(mail)
    assert.match(link, new RegExp(`^http://localhost:${service.port}/verify\\?token=[\\w-]{43}$`))
    // Opened where this browser is signed in (the mail names the service as localhost).
    const here = link.replace('localhost', '127.0.0.1')
    const confirmed = await page.goto(here)
    assert.equal(confirmed?.status(), 200)
    assert.match((await page.textContent('#verified')) ?? '', /owner@example\.com/)
    // The browser is signed in, and the page's menu says so, as the dashboard's does.
    assert.equal(await page.locator('header.top form[action="/signout"]').count(), 1)
    assert.equal(await page.locator('header.top a[href="/signin"]').count(), 0)
    await page.goto(`${base}/dashboard`)
    assert.equal(await page.locator('#verify-banner').count(), 0, 'the banner stays')
    assert.equal((await page.goto(here))?.status(), 400, 'a verification link works once')
  })

  it('confirms only in a browser signed in to the account: elsewhere it asks for that sign-in', async () => {
    const signedUp = await (await browser.newContext()).newPage()
    await signUpIn(signedUp, base, 'elsewhere')
    const link = inbox.link(await inbox.waitFor('elsewhere@example.com', /Confirm your email/))
    const path = new URL(link).pathname + new URL(link).search

    // A mail scanner opening the link confirms nothing and spends nothing.
    const scanned = await fetch(`${base}${path}`)
    assert.equal(scanned.status, 200)
    assert.match(await scanned.text(), /id="verify-sign-in"/)

    // Another account's browser is told so; the link still works afterwards.
    const other = await (await browser.newContext()).newPage()
    assert.equal(await signIn(other, base, 'owner@example.com', PASSWORD), 303)
    assert.equal((await other.goto(`${base}${path}`))?.status(), 200)
    assert.match((await other.textContent('#verify-sign-in')) ?? '', /signed in to another account/)
    // Its "Sign in to confirm" shows the sign-in form, not the same page again.
    await Promise.all([other.waitForURL(/\/signin\?next=/), other.click('#verify-sign-in-link')])
    assert.equal(await other.locator('form[action="/signin"] #email').count(), 1)

    // A browser not signed in signs in from the page and comes back to the link, which confirms.
    const phone = await (await browser.newContext()).newPage()
    assert.equal((await phone.goto(`${base}${path}`))?.status(), 200)
    const text = (await phone.textContent('main')) ?? ''
    assert.match(text, /confirms elsewhere@example\.com as the address of a Burrow account/)
    assert.match(text, /You did not sign up for Burrow\?/)
    await Promise.all([phone.waitForURL(/\/signin\?next=/), phone.click('#verify-sign-in-link')])
    await phone.fill('#email', 'elsewhere@example.com')
    await phone.fill('#password', PASSWORD)
    await Promise.all([
      phone.waitForURL(`${base}${path}`),
      phone.click('form[action="/signin"] button[type=submit]'),
    ])
    assert.match((await phone.textContent('#verified')) ?? '', /elsewhere@example\.com/)
    await signedUp.goto(`${base}/dashboard`)
    assert.equal(await signedUp.locator('#verify-banner').count(), 0)
    assert.equal((await phone.goto(`${base}${path}`))?.status(), 400, 'it works once')
  })

  it('sends a new verification link from the banner', async () => {
    const page = await (await browser.newContext()).newPage()
    await signUpIn(page, base, 'late')
    const firstMail = await inbox.waitFor('late@example.com', /Confirm/)
    const first = inbox.link(firstMail)
    await Promise.all([
      page.waitForURL(`${base}/dashboard?notice=verify_sent`),
      page.click('#verify-banner button'),
    ])
    const second = inbox.link(await inbox.waitForAnother('late@example.com', /Confirm/, firstMail))
    assert.notEqual(second, first)
    const here = (link: string) => link.replace('localhost', '127.0.0.1')
    assert.equal((await page.goto(here(first)))?.status(), 400, 'the older link was voided')
    assert.equal((await page.goto(here(second)))?.status(), 200)
    assert.match((await page.textContent('#verified')) ?? '', /late@example\.com/)
  })

  it('resets a forgotten password from the mailed link, once, signing other browsers out', async () => {
    const other = await (await browser.newContext()).newPage()
    assert.equal(await signIn(other, base, 'owner@example.com', PASSWORD), 303)
    assert.equal(new URL(other.url()).pathname, '/dashboard')

    const page = await (await browser.newContext()).newPage()
    await page.goto(`${base}/signin`)
    await Promise.all([page.waitForURL(`${base}/forgot`), page.click('text=Forgot your password?')])
    await page.fill('#email', 'OWNER@example.com')
    await page.click('form[action="/forgot"] button[type=submit]')
    await page.waitForSelector('#reset-sent')

    const mail = await inbox.waitFor('owner@example.com', /Reset your Burrow password/)
    assert.match(mail.text, /works once, for an hour/)
    const link = inbox.link(mail)
    // A stranger asking for another link does not void the one the owner holds.
    await postForm(base, '/forgot', { email: 'owner@example.com' }, '203.0.113.77')
    const strangers = inbox.link(await inbox.waitForAnother('owner@example.com', /Reset/, mail))
    assert.notEqual(strangers, link)
    assert.equal((await page.goto(link))?.status(), 200)
    await page.fill('#password', 'aaaaaaaaaaaa')
    await page.click('form[action="/reset"] button[type=submit]')
    await page.waitForSelector('.notice.error')
    assert.match((await page.textContent('.notice.error')) ?? '', /one character repeated/)
    await page.fill('#password', NEW_PASSWORD)
    await Promise.all([
      page.waitForURL(`${base.replace('127.0.0.1', 'localhost')}/dashboard?notice=password_reset`),
      page.click('form[action="/reset"] button[type=submit]'),
    ])
    assert.match((await page.textContent('main')) ?? '', /Your new password is set/)

    await other.goto(`${base}/dashboard`)
    assert.equal(new URL(other.url()).pathname, '/signin', 'the other browser is still signed in')
    assert.equal(await signIn(other, base, 'owner@example.com', PASSWORD), 401)
    assert.equal(await signIn(other, base, 'owner@example.com', NEW_PASSWORD), 303)

    const again = await page.goto(link)
    assert.equal(again?.status(), 400, 'a reset link works once')
    assert.equal((await page.goto(strangers))?.status(), 400, 'and a used one voids the others')
    assert.match((await page.textContent('main')) ?? '', /does not work any more/)
  })

  it("takes back an account made with someone else's address on its first reset", async () => {
    // Someone signs up with an address they do not own and keeps credentials that need no browser.
    const squatter = await signUp(base, 'squatted')
    const hook = await squatter.api('POST', '/api/webhooks', { url: 'https://hooks.example.com/x' })
    assert.equal(hook.status, 201, JSON.stringify(hook.json))
    const made = await squatter.api<{ tunnel: { id: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name: 'kept' },
    )
    assert.equal(made.status, 201)
    const tunnelId = made.json.tunnel.id
    const agentToken = await squatter.api('POST', `/api/tunnels/${tunnelId}/agent-tokens`, {
      name: 'squatter',
    })
    assert.equal(agentToken.status, 201, JSON.stringify(agentToken.json))

    // The address's owner first clicks the confirmation mailed at the squatter's sign-up: not
    // signed in to the account, that confirms nothing, and the page points at the reset.
    const signUpMail = await inbox.waitFor('squatted@example.com', /Confirm your email address/)
    const clicked = await fetch(inbox.link(signUpMail).replace('localhost', '127.0.0.1'))
    assert.equal(clicked.status, 200)
    assert.match(await clicked.text(), /href="\/forgot">Reset the password/)

    // The address's owner resets the password from the mailed link.
    assert.equal(
      (await postForm(base, '/forgot', { email: 'squatted@example.com' }, RECLAIMER)).status,
      200,
    )
    const mail = await inbox.waitFor('squatted@example.com', /Reset your Burrow password/)
    const url = new URL(inbox.link(mail))
    const reset = await postForm(
      base,
      '/reset',
      { token: url.searchParams.get('token')!, password: NEW_PASSWORD },
      RECLAIMER,
      url.pathname + url.search,
    )
    assert.equal(reset.status, 200)
    const html = await reset.text()
    assert.match(html, /id="recovered">This address was not confirmed before/)
    const shown = /<td>kept<\/td><td><code class="key" id="key-0">([^<]+)</.exec(html)?.[1]
    assert.ok(shown, 'the new key is shown')
    assert.notEqual(shown, made.json.key)
    const cookie = reset.headers
      .getSetCookie()
      .find((c) => c.startsWith('burrow_session='))!
      .split(';', 1)[0]!
    const asOwner = async <T>(path: string) =>
      (await (await fetch(`${base}${path}`, { headers: { cookie } })).json()) as T

    // Nothing the squatter kept works; the tunnel stays, and the address counts as confirmed.
    assert.equal((await squatter.api('GET', '/api/tunnels')).status, 401)
    assert.deepEqual(await asOwner('/api/tokens'), { tokens: [] })
    assert.deepEqual(await asOwner('/api/webhooks'), { endpoints: [] })
    assert.deepEqual(await asOwner(`/api/tunnels/${tunnelId}/agent-tokens`), { agent_tokens: [] })
    const tunnels = await asOwner<{ tunnels: { id: string }[] }>('/api/tunnels')
    assert.deepEqual(
      tunnels.tunnels.map((t) => t.id),
      [tunnelId],
    )
    const dashboard = await fetch(`${base}/dashboard`, { headers: { cookie } })
    assert.doesNotMatch(await dashboard.text(), /id="verify-banner"/)

    // A later reset of the now confirmed address keeps the owner's own API token.
    const csrf = /name="_csrf" value="([^"]+)"/.exec(
      await (await fetch(`${base}/dashboard/tokens`, { headers: { cookie } })).text(),
    )![1]!
    const tokenPage = await fetch(`${base}/dashboard/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: csrf, name: 'mine' }),
    })
    const mine = /id="token-secret">([^<]+)</.exec(await tokenPage.text())?.[1] ?? ''
    assert.match(mine, /^btk_/)
    assert.equal(
      (await postForm(base, '/forgot', { email: 'squatted@example.com' }, RECLAIMER)).status,
      200,
    )
    const second = new URL(
      inbox.link(await inbox.waitForAnother('squatted@example.com', /Reset your/, mail)),
    )
    const again = await postForm(
      base,
      '/reset',
      { token: second.searchParams.get('token')!, password: PASSWORD },
      RECLAIMER,
      second.pathname + second.search,
    )
    assert.equal(again.status, 303)
    assert.equal(again.headers.get('location'), '/dashboard?notice=password_reset')
    const stillMine = await fetch(`${base}/api/tunnels`, {
      headers: { authorization: `Bearer ${mine}` },
    })
    assert.equal(stillMine.status, 200)
  })

  it('answers the same for an address without an account, and mails nothing to it', async () => {
    const unknown = await postForm(base, '/forgot', { email: 'nobody@example.com' }, '198.51.100.1')
    const known = await postForm(base, '/forgot', { email: 'late@example.com' }, '198.51.100.2')
    assert.equal(unknown.status, 200)
    assert.equal(known.status, 200)
    const strip = (text: string) => text.replace(/<input type="hidden"[^>]*>/g, '')
    assert.equal(strip(await unknown.text()), strip(await known.text()))
    await inbox.waitFor('late@example.com', /Reset/)
    assert.ok(!inbox.mails.some((m) => m.to.includes('nobody@example.com')))
  })

  it('limits reset requests per address (429) and mails per account', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 7; i++) {
      const res = await postForm(base, '/forgot', { email: 'owner@example.com' }, '203.0.113.50')
      statuses.push(res.status)
      if (res.status === 429) {
        assert.ok(Number(res.headers.get('retry-after')) >= 1)
        assert.match(await res.text(), /Too many requests/)
      }
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429])
    // Many addresses asking for one account: at most 3 mails an hour reach it.
    const before = inbox.mails.length
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        postForm(base, '/forgot', { email: 'owner@example.com' }, `203.0.113.${60 + i}`),
      ),
    )
    await inbox.waitFor('late@example.com', /Reset/)
    const toOwner = inbox.mails.filter((m) => m.to.includes('owner@example.com'))
    const resets = toOwner.filter((m) => /Reset/.test(m.subject))
    assert.ok(resets.length <= 3, `${resets.length} reset mails in an hour`)
    assert.ok(inbox.mails.length - before <= 3)

    // The owner, on a browser that signed in before, still gets a link: its own allowance.
    const ownResets = () =>
      inbox.mails.filter(
        (m) => m.to.includes('owner@example.com') && /Reset your Burrow/.test(m.subject),
      ).length
    const had = ownResets()
    const context = await browser.newContext({
      extraHTTPHeaders: { 'x-forwarded-for': '203.0.113.90' },
    })
    const page = await context.newPage()
    assert.equal(await signIn(page, base, 'owner@example.com', NEW_PASSWORD), 303)
    await page.goto(`${base}/forgot`)
    await page.fill('#email', 'owner@example.com')
    await page.click('form[action="/forgot"] button[type=submit]')
    await page.waitForSelector('#reset-sent')
    for (const deadline = Date.now() + 15_000; ownResets() === had;) {
      assert.ok(Date.now() < deadline, 'the owner got no reset link')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })

  it('refuses hostile reset and verify requests', async () => {
    // Malformed, oversized and made-up tokens.
    for (const token of ['', 'x', 'a'.repeat(43), 'b'.repeat(5000), '<script>']) {
      const reset = await fetch(`${base}/reset?token=${encodeURIComponent(token)}`)
      assert.equal(reset.status, 400)
      assert.ok(!(await reset.text()).includes('<script>'))
      const verify = await fetch(`${base}/verify?token=${encodeURIComponent(token)}`)
      assert.equal(verify.status, 400)
      await verify.arrayBuffer()
    }
    // No form token: refused before anything is looked at.
    const bare = await fetch(`${base}/forgot`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=owner%40example.com',
    })
    assert.equal(bare.status, 403)
    await bare.arrayBuffer()
    // A foreign Origin.
    const foreign = await fetch(`${base}/forgot`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
      },
      body: 'email=owner%40example.com',
    })
    assert.equal(foreign.status, 403)
    await foreign.arrayBuffer()
    // An oversized body.
    const huge = await postForm(base, '/forgot', { email: 'x'.repeat(100_000) }, '203.0.113.90')
    assert.equal(huge.status, 413)
    await huge.arrayBuffer()
    // Concurrent uses of one reset link: exactly one sets the password.
    // (e2e@example.com, made by the operator command, has been sent nothing yet.)
    await postForm(base, '/forgot', { email: 'e2e@example.com' }, '203.0.113.91')
    const link = inbox.link(await inbox.waitFor('e2e@example.com', /Reset/))
    const token = new URL(link).searchParams.get('token') ?? ''
    // Every form is loaded before any is sent: a form loaded after the link was used carries
    // no form token, and its refusal (403) would say nothing about concurrent uses.
    const forms = await Promise.all(
      Array.from({ length: 6 }, () =>
        openForm(base, '/reset', '127.0.0.1', `/reset?token=${token}`),
      ),
    )
    const answers = await Promise.all(
      forms.map((send, i) => send({ token, password: `${NEW_PASSWORD} ${i}` })),
    )
    const statuses = answers.map((a) => a.status).sort()
    assert.equal(statuses.filter((s) => s === 303).length, 1, String(statuses))
    assert.ok(
      statuses.every((s) => s === 303 || s === 400),
      String(statuses),
    )
  })
})

describe('the dev outbox without SMTP', { skip: !hasChromium, timeout: 120_000 }, () => {
  let service: Service
  let browser: Browser
  let base: string

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    base = `http://127.0.0.1:${service.port}`
    browser = await launchBrowser()
  })

  after(async () => {
    await browser?.close()
    await service?.close()
  })

  it('says so at start, and shows reset mail to this machine, whose link works', async () => {
    assert.match(
      service.proc.stderr + service.proc.stdout,
      /mail is shown at http:\/\/localhost:\d+\/dev\/outbox/,
    )
    const page = await (await browser.newContext()).newPage()
    await page.goto(`${base}/dev/outbox`)
    assert.equal(await page.locator('#outbox-empty').count(), 1)
    // Signed out: the signed-out menu.
    assert.equal(await page.locator('header.top a[href="/signin"]').count(), 1)
    assert.equal(await page.locator('header.top form[action="/signout"]').count(), 0)
    await page.goto(`${base}/forgot`)
    await page.fill('#email', 'e2e@example.com')
    await page.click('form[action="/forgot"] button[type=submit]')
    await page.waitForSelector('#reset-sent')
    let mails = 0
    while (mails === 0) {
      await page.goto(`${base}/dev/outbox`)
      mails = await page.locator('article.mail').count()
    }
    assert.equal(await page.textContent('.mail-to'), 'e2e@example.com')
    await Promise.all([page.waitForURL(/\/reset\?token=/), page.click('.mail-text a')])
    await page.fill('#password', NEW_PASSWORD)
    await Promise.all([
      page.waitForURL(/\/dashboard\?notice=password_reset$/),
      page.click('form[action="/reset"] button[type=submit]'),
    ])
    // Signed in, the outbox shows the signed-in menu, as every other page does.
    // (The mail's link is at the service URL, http://localhost:…, where the session is.)
    const signedIn = new URL(page.url()).origin
    await page.goto(`${signedIn}/dev/outbox`)
    assert.equal(
      await page.textContent('header.top form[action="/signout"] .muted'),
      'e2e@example.com',
    )
    assert.equal(await page.locator('header.top a[href="/dashboard/account"]').count(), 1)
    assert.equal(await page.locator('header.top a[href="/signin"]').count(), 0)
    assert.equal(await page.locator('a.brand[href="/dashboard"]').count(), 1)
    // Signed out, the signed-out menu again; so for the signed-out session's cookie sent again
    // and for a cookie no session has.
    const cookies = await page.context().cookies()
    await page.click('header.top form[action="/signout"] button[type=submit]')
    await page.waitForURL((url) => url.pathname !== '/dev/outbox')
    await page.goto(`${signedIn}/dev/outbox`)
    assert.equal(await page.locator('header.top a[href="/signin"]').count(), 1)
    for (const forged of [cookies, cookies.map((c) => ({ ...c, value: 'x'.repeat(4000) }))]) {
      await page.context().addCookies(forged)
      const answer = await page.goto(`${signedIn}/dev/outbox`)
      assert.equal(answer?.status(), 200)
      assert.equal(await page.locator('header.top a[href="/signin"]').count(), 1)
      assert.equal(await page.locator('header.top form[action="/signout"]').count(), 0)
    }
  })

  it('is not there for other machines or other host names', async () => {
    for (const headers of [
      { 'x-forwarded-for': '203.0.113.9' },
      { host: 'burrow.example.com' },
      { host: `hello--acme.localhost:${service.port}` },
    ] as Record<string, string>[]) {
      // node:http, because fetch does not send a Host header of our choosing.
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${base}/dev/outbox`, { headers }, (res) => {
          let body = ''
          res.setEncoding('utf8').on('data', (c: string) => (body += c))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
        })
        req.on('error', reject).end()
      })
      assert.equal(answer.status, 404, JSON.stringify(headers))
      assert.match(answer.body, /not_found/)
      assert.ok(!answer.body.includes('e2e@example.com'))
    }
    // Nor do pages point other machines to it: "Check your email" says nothing of the outbox.
    const remote = await postForm(base, '/forgot', { email: 'e2e@example.com' }, '203.0.113.9')
    assert.equal(remote.status, 200)
    const sent = await remote.text()
    assert.match(sent, /id="reset-sent"/)
    assert.ok(!sent.includes('/dev/outbox'), sent)
    const local = await postForm(base, '/forgot', { email: 'e2e@example.com' })
    assert.match(await local.text(), /<a id="outbox-link" href="\/dev\/outbox">/)
  })
})
