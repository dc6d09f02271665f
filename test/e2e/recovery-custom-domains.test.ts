/**
 * A custom domain is where an earlier holder of an account could keep the owner's agents (found
 * by a hostile review): someone who signed up with another person's address, bought Pro and added
 * a domain whose DNS they control kept it after the address's owner took the account back, and
 * `burrow up` then printed that domain as the tunnel's URL for the owner's agents, whose traffic
 * the earlier holder could send to their own server at any time. The first reset of an account
 * whose address was never confirmed now removes every custom domain of its tunnels.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buyPlan } from '../helpers/dev-checkout.js'
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.js'
import { startService, type Service } from '../helpers/stack.js'
import { signUp } from '../helpers/web-client.js'

const NEW_PASSWORD = 'purple otter lamp'

/** Post the form at `formPath` to `path` as a script would (its cookie and CSRF token). */
async function postForm(
  base: string,
  path: string,
  fields: Record<string, string>,
  formPath = path,
): Promise<Response> {
  const form = await fetch(`${base}${formPath}`)
  const cookie = form.headers.getSetCookie()[0]?.split(';', 1)[0] ?? ''
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? ''
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, ...fields }),
  })
}

describe("an earlier holder's custom domain and access settings", { timeout: 120_000 }, () => {
  let inbox: SmtpInbox
  let service: Service
  let base: string

  before(async () => {
    inbox = await startSmtpInbox()
    service = await startService({
      BURROW_SMTP_URL: inbox.url,
      BURROW_MAIL_FROM: 'Burrow Tests <tunnels@burrow.test>',
      BURROW_BILLING_PROVIDER: 'dev',
    })
    base = `http://127.0.0.1:${service.port}`
  })

  after(async () => {
    await service?.close()
    await inbox?.close()
  })

  it('is removed by the first reset of an address that was never confirmed', async () => {
    const squatter = await signUp(base, 'domained')
    await buyPlan(base, (method, path, body) => squatter.api(method, path, body), 'pro')
    const made = await squatter.api<{ tunnel: { id: string } }>('POST', '/api/tunnels', {
      name: 'kept',
    })
    assert.equal(made.status, 201)
    const tunnelId = made.json.tunnel.id
    const added = await squatter.api('POST', `/api/tunnels/${tunnelId}/domains`, {
      domain: 'mcp.squatter.test',
    })
    assert.equal(added.status, 201, JSON.stringify(added.json))
    const opened = await squatter.api('PUT', `/api/tunnels/${tunnelId}/access`, {
      mode: 'public',
      allow_ips: ['198.51.100.0/24'],
    })
    assert.equal(opened.status, 200, JSON.stringify(opened.json))

    assert.equal((await postForm(base, '/forgot', { email: 'domained@example.com' })).status, 200)
    const mail = await inbox.waitFor('domained@example.com', /Reset your Burrow password/)
    const url = new URL(inbox.link(mail))
    const reset = await postForm(
      base,
      '/reset',
      { token: url.searchParams.get('token')!, password: NEW_PASSWORD },
      url.pathname + url.search,
    )
    assert.equal(reset.status, 200)
    const page = await reset.text()
    const cookie = reset.headers
      .getSetCookie()
      .find((c) => c.startsWith('burrow_session='))!
      .split(';', 1)[0]!
    const domains = await fetch(`${base}/api/tunnels/${tunnelId}/domains`, {
      headers: { cookie },
    })
    assert.equal(domains.status, 200)
    assert.deepEqual(((await domains.json()) as { domains: unknown[] }).domains, [])
    const tunnel = await fetch(`${base}/api/tunnels/${tunnelId}`, { headers: { cookie } })
    assert.equal(((await tunnel.json()) as { custom_url: unknown }).custom_url, null)
    assert.match(page, /id="recovered">[^<]*custom domains/, 'the page says so')
    // The tunnel the earlier holder opened to anyone is back to agents signing in.
    const access = await fetch(`${base}/api/tunnels/${tunnelId}/access`, { headers: { cookie } })
    assert.deepEqual(await access.json(), { mode: 'oauth', allow_ips: [] })
    assert.match(page, /id="recovered">[^<]*access is back to the default/)
  })
})
