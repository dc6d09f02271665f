/**
 * Client ID Metadata Documents end to end: the v2 MCP client SDK offers an https `client_id`
 * URL (as Claude does) because burrowd's metadata says it supports them, burrowd fetches the
 * document (a real TLS server on this machine, trusted through NODE_EXTRA_CA_CERTS, reachable
 * because this service allows private addresses), names the client from it on the consent page,
 * caches it, and refuses documents that are oversized, name another client_id or list no valid
 * redirect URI.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client'
import { chromium, type Browser, type Page } from 'playwright-core'
import type { Child } from '../helpers/child.js'
import { startChild } from '../helpers/child.js'
import { BrowserProvider } from '../helpers/oauth-browser-provider.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { ROOT, startClient, startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run']
const HEADER_LOG = join(ROOT, 'test/fixtures/header-log-server.mjs')

describe('OAuth with Client ID Metadata Documents', () => {
  let certDir: string
  let metadataServer: TlsServer
  let metadataBase: string
  const fetched: string[] = []
  let service: Service
  let base: string
  let quinn: WebUser
  let local: Child
  let client: Child
  let tunnelUrl: string
  let callbackServer: Server
  let callback: string
  const codes: URLSearchParams[] = []
  let browser: Browser
  let page: Page

  before(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'burrow-cimd-'))
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-keyout',
        join(certDir, 'key.pem'),
        '-out',
        join(certDir, 'cert.pem'),
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    )
    callbackServer = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x')
      if (url.pathname === '/callback') codes.push(url.searchParams)
      res.writeHead(200).end('done')
    })
    await new Promise<void>((r) => callbackServer.listen(0, '127.0.0.1', r))
    callback = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`
    metadataServer = createTlsServer(
      {
        key: readFileSync(join(certDir, 'key.pem')),
        cert: readFileSync(join(certDir, 'cert.pem')),
      },
      (req, res) => {
        fetched.push(req.url ?? '')
        const self = `${metadataBase}${req.url ?? ''}`
        const docs: Record<string, unknown> = {
          '/client.json': {
            client_id: self,
            client_name: 'CIMD e2e agent',
            redirect_uris: [callback],
          },
          '/huge.json': {
            client_id: self,
            client_name: 'x'.repeat(20_000),
            redirect_uris: [callback],
          },
          '/other-id.json': { client_id: `${metadataBase}/client.json`, redirect_uris: [callback] },
          '/bad-redirect.json': { client_id: self, redirect_uris: ['javascript:alert(1)'] },
        }
        // The same document served as text, or without a type (a site's raw view of a file).
        const served = /^\/(text|untyped|two-types)\.json$/.exec(req.url ?? '')
        if (served) {
          const text = JSON.stringify({ client_id: self, redirect_uris: [callback] })
          if (served[1] === 'two-types') {
            // Sent twice: only the first type was read.
            res.setHeader('content-type', ['application/json', 'text/plain'])
            return void res.writeHead(200).end(text)
          }
          const type = served[1] === 'text' ? { 'content-type': 'text/plain; charset=utf-8' } : {}
          return void res.writeHead(200, type).end(text)
        }
        const doc = docs[req.url ?? '']
        if (doc === undefined) return void res.writeHead(404).end()
        const type =
          req.url === '/client.json' ? 'application/json' : 'application/json; charset=utf-8'
        res.writeHead(200, { 'content-type': type }).end(JSON.stringify(doc))
      },
    )
    await new Promise<void>((r) => metadataServer.listen(0, '127.0.0.1', r))
    metadataBase = `https://127.0.0.1:${(metadataServer.address() as AddressInfo).port}`

    service = await startService({
      BURROW_LOG: 'info',
      BURROW_WEBHOOKS_ALLOW_PRIVATE: '1',
      NODE_EXTRA_CA_CERTS: join(certDir, 'cert.pem'),
    })
    base = `http://127.0.0.1:${service.port}`
    quinn = await signUp(base, 'quinn')
    local = startChild(process.execPath, [HEADER_LOG], { env: { ...process.env, PORT: '0' } })
    const localUrl = `http://127.0.0.1:${(await local.waitFor(/listening on (\d+)/))[1]}/mcp`
    const made = await quinn.api<{ tunnel: { mcp_url: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name: 'cimd' },
    )
    tunnelUrl = made.json.tunnel.mcp_url
    client = await startClient(service, made.json.key, ['--upstream', localUrl])
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
    page = await (await browser.newContext()).newPage()
  })

  after(async () => {
    await browser?.close()
    await client?.stop()
    await local?.stop()
    await service?.close()
    metadataServer?.close()
    callbackServer?.close()
    rmSync(certDir, { recursive: true, force: true })
  })

  it('signs the SDK in with its metadata document instead of registering', async () => {
    for (let round = 0; round < 2; round++) {
      const provider = new BrowserProvider(page, callback, 'quinn@example.com')
      provider.clientMetadataUrl = `${metadataBase}/client.json`
      const transport = () =>
        new StreamableHTTPClientTransport(new URL(tunnelUrl), {
          authProvider: provider,
          fetch: publicFetch,
        })
      await assert.rejects(
        new Client({ name: 'cimd', version: '1' }).connect(transport()),
        UnauthorizedError,
      )
      assert.equal(provider.info?.client_id, `${metadataBase}/client.json`)
      assert.equal(provider.consent?.client, 'CIMD e2e agent')
      const answer = codes.at(-1)!
      await transport().finishAuth(answer.get('code')!, answer.get('iss')!)
      const agent = new Client({ name: 'cimd', version: '1' })
      await agent.connect(transport())
      const result = await agent.callTool({ name: 'echo', arguments: { text: 'by url' } })
      assert.deepEqual(result.content, [{ type: 'text', text: 'by url' }])
      await agent.close()
    }
    // Two sign-ins, one fetch: the document is cached.
    assert.deepEqual(
      fetched.filter((u) => u === '/client.json'),
      ['/client.json'],
    )
  })

  it('refuses documents that are oversized, name another client, list bad redirect URIs or are not served as JSON, and URLs with dot segments', async () => {
    for (const [path, text] of [
      ['/huge.json', /larger than 16384 bytes/],
      ['/other-id.json', /must name its own URL as client_id/],
      ['/bad-redirect.json', /javascript: redirect URIs are not allowed/],
      ['/missing.json', /answered HTTP 404/],
      ['/text.json', /must be served as application\/json, not text\/plain/],
      ['/untyped.json', /must be served as application\/json, not without a type/],
      ['/x/../client.json', /must not have dot segments/],
      ['/x/%2E%2e/client.json', /must not have dot segments/],
      ['/./client.json', /must not have dot segments/],
      ['\\x\\..\\client.json', /must not have dot segments/],
      ['/two-types.json', /must be served as application\/json, not several types/],
    ] as const) {
      const params = new URLSearchParams({
        response_type: 'code',
        client_id: `${metadataBase}${path}`,
        redirect_uri: callback,
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        resource: tunnelUrl,
      })
      const res = await fetch(`${base}/oauth/authorize?${params.toString()}`, {
        redirect: 'manual',
      })
      assert.equal(res.status, 400, path)
      assert.equal(res.headers.get('location'), null)
      assert.match(await res.text(), text)
    }
  })

  it('says only that a document could not be fetched, not what DNS answered', async () => {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: 'https://no-such-host.invalid/client.json',
      redirect_uri: callback,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      resource: tunnelUrl,
    })
    const res = await fetch(`${base}/oauth/authorize?${params.toString()}`, { redirect: 'manual' })
    assert.equal(res.status, 400)
    const text = await res.text()
    assert.match(text, /could not be fetched from a public address/)
    assert.doesNotMatch(text, /ENOTFOUND|getaddrinfo|resolves to/)
    // The operator's log says why.
    await service.proc.waitFor(
      /client metadata https:\/\/no-such-host\.invalid\/client\.json could not be fetched: .*(ENOTFOUND|EAI_AGAIN|not resolve|resolves)/,
    )
  })

  it('fetches at most ten unknown documents a minute for one address', async () => {
    const before = fetched.length
    const statuses: string[] = []
    for (let i = 0; i < 14; i++) {
      const params = new URLSearchParams({
        response_type: 'code',
        client_id: `${metadataBase}/unknown-${i}.json`,
        redirect_uri: callback,
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        resource: tunnelUrl,
      })
      // Another address behind the trusted proxy each time would get its own budget: this is one.
      const res = await fetch(`${base}/oauth/authorize?${params.toString()}`, {
        redirect: 'manual',
        headers: { 'x-forwarded-for': '198.51.100.23' },
      })
      assert.equal(res.status, 400)
      statuses.push(
        /too many client metadata documents/.test(await res.text()) ? 'limited' : 'fetched',
      )
    }
    assert.ok(fetched.length - before <= 10, `${fetched.length - before} documents fetched`)
    assert.ok(
      statuses.slice(10).every((s) => s === 'limited'),
      statuses.join(' '),
    )
  })
})
