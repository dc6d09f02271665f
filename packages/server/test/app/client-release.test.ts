/**
 * `GET /api/client/latest` on the real built burrowd (`npx tsc -b` first): burrowd's own version
 * by default, the operator's BURROW_CLIENT_LATEST_VERSION and BURROW_CLIENT_DOWNLOAD_URL when
 * set, and bad values refused at start with a message naming the variable. Paths under `/api`
 * that nothing serves answer in the API's error shape.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { loadConfig } from '../../src/config.js'
import { ConfigError } from '../../src/config-error.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
import { edgeRequest } from '../helpers/edge-request.js'

const PACKAGE_JSON = new URL('../../package.json', import.meta.url)
const OWN_VERSION = (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }).version

const get = (service: Service, method = 'GET') =>
  edgeRequest(service.port, `127.0.0.1:${service.port}`, { method, path: '/api/client/latest' })

describe('GET /api/client/latest', () => {
  describe('without configuration', () => {
    let service: Service
    before(async () => {
      service = await startService({ BURROW_LOG: 'warn' })
    })
    after(async () => {
      await service?.close()
    })

    it("announces burrowd's own version and no download URL", async () => {
      const res = await get(service)
      assert.equal(res.status, 200)
      assert.match(String(res.headers['content-type']), /^application\/json/)
      assert.deepEqual(JSON.parse(res.text), { version: OWN_VERSION })
    })

    it('answers HEAD without a body, and refuses other methods with 405 and Allow', async () => {
      const head = await get(service, 'HEAD')
      assert.equal(head.status, 200)
      assert.equal(head.text, '')
      const post = await get(service, 'POST')
      assert.equal(post.status, 405)
      assert.deepEqual(JSON.parse(post.text), {
        error: { code: 'method_not_allowed', message: '/api/client/latest accepts GET, HEAD' },
      })
      assert.equal(post.headers.allow, 'GET, HEAD')
    })

    it('answers a path the API does not have in the API’s error shape, others as before', async () => {
      for (const path of ['/api', '/api/nope', '/api/tunnels/x/nope/deeper']) {
        const res = await edgeRequest(service.port, `127.0.0.1:${service.port}`, { path })
        assert.equal(res.status, 404, path)
        assert.match(String(res.headers['content-type']), /^application\/json/)
        assert.deepEqual(JSON.parse(res.text), {
          error: { code: 'not_found', message: `no API route at ${path}` },
        })
      }
      const outside = await edgeRequest(service.port, `127.0.0.1:${service.port}`, {
        path: '/apix',
      })
      assertRefusal(outside, { policy: 'not_found' })
    })
  })

  describe('with BURROW_CLIENT_LATEST_VERSION and BURROW_CLIENT_DOWNLOAD_URL', () => {
    let service: Service
    before(async () => {
      service = await startService({
        BURROW_LOG: 'warn',
        BURROW_CLIENT_LATEST_VERSION: '99.0.0',
        BURROW_CLIENT_DOWNLOAD_URL: 'https://example.com/burrow/releases',
      })
    })
    after(async () => {
      await service?.close()
    })

    it('announces the configured version and where to get it', async () => {
      const res = await get(service)
      assert.equal(res.status, 200)
      assert.deepEqual(JSON.parse(res.text), {
        version: '99.0.0',
        download_url: 'https://example.com/burrow/releases',
      })
    })
  })

  it('refuses a version that is not semantic, or a download URL that is not http(s)', () => {
    const refuse = (env: Record<string, string>, variable: string) =>
      assert.throws(
        () => loadConfig(env, '/'),
        (error: unknown) =>
          error instanceof ConfigError && error.message.startsWith(`${variable}="`),
      )
    refuse({ BURROW_CLIENT_LATEST_VERSION: 'v1.2.3' }, 'BURROW_CLIENT_LATEST_VERSION')
    refuse({ BURROW_CLIENT_LATEST_VERSION: '1.2' }, 'BURROW_CLIENT_LATEST_VERSION')
    refuse({ BURROW_CLIENT_DOWNLOAD_URL: 'ftp://example.com/x' }, 'BURROW_CLIENT_DOWNLOAD_URL')
    refuse({ BURROW_CLIENT_DOWNLOAD_URL: 'not a url' }, 'BURROW_CLIENT_DOWNLOAD_URL')
    const ok = loadConfig({ BURROW_CLIENT_LATEST_VERSION: '1.0.0-rc.1+build.5' }, '/')
    assert.equal(ok.clientLatestVersion, '1.0.0-rc.1+build.5')
    assert.equal(loadConfig({}, '/').clientLatestVersion, null)
    assert.equal(loadConfig({}, '/').clientDownloadUrl, null)
  })
})
