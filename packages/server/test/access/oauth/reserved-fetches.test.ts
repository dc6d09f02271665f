/**
 * The node's Client ID Metadata Document fetches keep a share for documents of clients that hold
 * a grant: strangers who spend the common budget from many addresses (sign-ins of clients nobody
 * approved) leave an approved client's document able to be fetched again. Each document draws on
 * the share at most once every 10 minutes, so a failing document asked for again and again, or
 * at once, cannot spend it, and one account's approved documents draw on it a few a minute at
 * most, so an account that approves hundreds of its own cannot empty it for others. A real TLS
 * document server on this machine; the registry's store is the real one (SQLite always,
 * PostgreSQL when TEST_DATABASE_URL is set).
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import { Agent } from 'undici'
import {
  ClientRegistry,
  METADATA_FETCHES_PER_ADDRESS,
  METADATA_FETCHES_PER_NODE,
} from '../../../src/access/oauth/client-registry.js'
import {
  RESERVED_METADATA_FETCHES_PER_ACCOUNT,
  RESERVED_METADATA_FETCHES_PER_NODE,
} from '../../../src/access/oauth/reserved-fetches.js'
import { OauthClientStore } from '../../../src/store/oauth-client-store.js'
import { OauthGrantStore } from '../../../src/store/oauth-grant-store.js'
import { openStore } from '../../../src/store/open-store.js'
import type { Store } from '../../../src/store/store.js'
import { UrlGuard } from '../../../src/webhooks/url-guard.js'
import { testBackends } from '../../helpers/test-databases.js'
import type { TestDatabase } from '../../helpers/test-databases.js'

const DAY = 24 * 3600_000

/** The real client store, counting how often the accounts approving a client are read. */
class CountingClientStore extends OauthClientStore {
  grantReads = 0

  override async grantAccounts(clientId: string, limit?: number): Promise<string[]> {
    this.grantReads++
    return super.grantAccounts(clientId, limit)
  }
}

describe('reserved metadata fetches', () => {
  let certDir: string
  let server: Server
  let base: string
  /** Paths fetched, in order. */
  const fetched: string[] = []
  /** Paths answered 503 (their server is failing). */
  const failing = new Set<string>()
  let trusting: Agent

  before(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'burrow-reserved-'))
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
    const cert = readFileSync(join(certDir, 'cert.pem'))
    server = createServer({ key: readFileSync(join(certDir, 'key.pem')), cert }, (req, res) => {
      const path = req.url ?? ''
      fetched.push(path)
      if (failing.has(path)) return void res.writeHead(503).end()
      if (!path.startsWith('/approved') && !path.startsWith('/known')) {
        return void res.writeHead(404).end()
      }
      const doc = {
        client_id: `${base}${path}`,
        client_name: path.slice(1),
        redirect_uris: ['http://127.0.0.1/cb'],
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
    // The guard's checks, through a dispatcher that trusts the test's certificate.
    trusting = new Agent({ connect: { ca: cert }, keepAliveTimeout: 1 })
  })

  after(async () => {
    await trusting.close()
    server.close()
    rmSync(certDir, { recursive: true, force: true })
  })

  for (const backend of testBackends()) {
    describe(`on ${backend.name}`, () => {
      let database: TestDatabase
      let store: Store
      let clock: number
      let registry: ClientRegistry
      let grants: OauthGrantStore
      let accountId: string
      let tunnelId: string
      let guard: UrlGuard
      let clients: CountingClientStore

      /** An account of its own, with a tunnel: `[account id, tunnel id]`. */
      const newAccount = async (slug: string): Promise<[string, string]> => {
        const id = (await store.createAccount({ email: `${slug}@example.com`, slug })).id
        return [id, (await store.createTunnel({ accountId: id, name: 'a' })).tunnel.id]
      }

      /** The client at `path`, fetched once now and approved by the tunnel's owner. */
      const approved = async (path: string, by: [string, string] = [accountId, tunnelId]) => {
        const client = await registry.find(`${base}${path}`, `owner of ${path}`)
        await grants.approve({
          tunnelId: by[1],
          accountId: by[0],
          clientId: client.clientId,
          clientName: client.name,
          approvedBy: 'a@example.com',
          resource: 'r',
          codeHash: `${path}-${by[0]}-code`,
          redirectUri: 'http://127.0.0.1/cb',
          codeChallenge: 'c'.repeat(43),
          codeExpiresAt: new Date(clock + 60_000),
        })
        return client.clientId
      }

      /** Strangers from `n` addresses spend the node's common budget on unknown clients. */
      const spendCommonBudget = async () => {
        const addresses = Math.ceil(METADATA_FETCHES_PER_NODE / METADATA_FETCHES_PER_ADDRESS)
        for (let a = 0; a < addresses; a++) {
          for (let i = 0; i < METADATA_FETCHES_PER_ADDRESS; i++) {
            await registry.find(`${base}/stranger-${a}-${i}.json`, `203.0.113.${a}`).catch(() => {})
          }
        }
        await assert.rejects(
          registry.find(`${base}/newcomer.json`, '198.51.100.1'),
          /too many client metadata documents are being fetched right now/,
        )
      }

      beforeEach(async () => {
        clock = Date.parse('2026-11-25T10:00:00.000Z')
        database = await backend.create()
        store = await openStore(database.config, { now: () => new Date(clock) })
        accountId = (await store.createAccount({ email: 'a@example.com', slug: 'acme' })).id
        tunnelId = (await store.createTunnel({ accountId, name: 'a' })).tunnel.id
        guard = new UrlGuard({ allowPrivate: true })
        const checked = {
          literalRefusal: (host: string) => guard.literalRefusal(host),
          dispatcher: trusting,
        } as unknown as UrlGuard
        clients = new CountingClientStore(store.db)
        registry = new ClientRegistry(clients, checked, () => new Date(clock))
        grants = new OauthGrantStore(store.db, () => new Date(clock))
        fetched.length = 0
        failing.clear()
      })

      afterEach(async () => {
        await guard.close()
        await store.close()
        await database.drop()
      })

      it('fetches an approved client again when strangers spent the common budget', async () => {
        const id = await approved('/approved.json')
        clock += 2 * DAY // its copy is too old to use
        await spendCommonBudget()
        const before = fetched.length
        assert.equal((await registry.find(id, '198.51.100.2')).name, 'approved.json')
        assert.deepEqual(fetched.slice(before), ['/approved.json'])
      })

      it('keeps the share from clients nobody approved', async () => {
        // Known (fetched once) but never approved: a stranger's own document.
        const id = (await registry.find(`${base}/known.json`, 'stranger')).clientId
        clock += 2 * DAY
        await spendCommonBudget()
        const before = fetched.length
        await assert.rejects(registry.find(id, '198.51.100.3'), /being fetched right now/)
        assert.equal(fetched.length, before, 'nothing fetched')
      })

      it('lets a failing approved document draw on the share once in 10 minutes', async () => {
        const id = await approved('/approved-failing.json')
        const other = await approved('/approved-other.json')
        clock += 2 * DAY
        failing.add('/approved-failing.json')
        await spendCommonBudget()
        const before = fetched.length
        // Asked again and again, and at once, from many addresses: one fetch.
        await assert.rejects(registry.find(id, '198.51.100.4'), /could not be fetched|HTTP 503/)
        for (let i = 0; i < 20; i++) await registry.find(id, `192.0.2.${i}`).catch(() => {})
        await Promise.all(
          Array.from({ length: 20 }, (_, i) => registry.find(id, `192.0.2.${i}`).catch(() => {})),
        )
        assert.deepEqual(fetched.slice(before), ['/approved-failing.json'])
        // It did not spend the share of another approved client.
        assert.equal((await registry.find(other, '198.51.100.4')).name, 'approved-other.json')
        // Ten minutes on, it may draw again.
        clock += 10 * 60_000
        failing.clear()
        assert.equal((await registry.find(id, '198.51.100.4')).name, 'approved-failing.json')
      })

      it('reads who approved a document only when it may draw on the share (found by a review)', async () => {
        // A document approved by many (a popular client's): reading its grants is not free.
        const id = await approved('/approved-popular.json')
        clock += 2 * DAY
        failing.add('/approved-popular.json')
        await registry.find(id, '198.51.100.9').catch(() => {})
        const reads = clients.grantReads
        assert.equal(reads, 1, 'read once, to draw on the share')
        // Drawn in the last 10 minutes: asked again and again, its grants are not read again.
        for (let i = 0; i < 20; i++) await registry.find(id, `192.0.2.${i}`).catch(() => {})
        assert.equal(clients.grantReads, reads)
        // The share spent by others: nor are they read then.
        clock += 10 * 60_000
        const others: string[] = []
        for (
          let a = 0;
          a < RESERVED_METADATA_FETCHES_PER_NODE / RESERVED_METADATA_FETCHES_PER_ACCOUNT;
          a++
        ) {
          const owner = await newAccount(`spend${String.fromCharCode(97 + a)}`)
          for (let i = 0; i < RESERVED_METADATA_FETCHES_PER_ACCOUNT; i++) {
            others.push(await approved(`/approved-spend-${a}-${i}.json`, owner))
          }
        }
        clock += 2 * DAY
        await Promise.allSettled(others.map((other) => registry.find(other, '198.51.100.10')))
        const spent = clients.grantReads
        for (let i = 0; i < 20; i++) await registry.find(id, `192.0.2.${i}`).catch(() => {})
        assert.equal(clients.grantReads, spent)
      })

      it('bounds the share: approved documents past it wait like everyone', async () => {
        // Many accounts, each within its own part, asking at once: the node's share holds.
        const ids: string[] = []
        const accounts =
          Math.ceil(RESERVED_METADATA_FETCHES_PER_NODE / RESERVED_METADATA_FETCHES_PER_ACCOUNT) + 1
        for (let a = 0; a < accounts; a++) {
          const owner = await newAccount(`many${String.fromCharCode(97 + a)}`)
          for (let i = 0; i < RESERVED_METADATA_FETCHES_PER_ACCOUNT; i++) {
            ids.push(await approved(`/approved-${a}-${i}.json`, owner))
          }
        }
        clock += 2 * DAY
        await spendCommonBudget()
        const before = fetched.length
        const answers = await Promise.allSettled(ids.map((id) => registry.find(id, '198.51.100.5')))
        assert.equal(fetched.length - before, RESERVED_METADATA_FETCHES_PER_NODE)
        assert.equal(
          answers.filter((a) => a.status === 'rejected').length,
          ids.length - RESERVED_METADATA_FETCHES_PER_NODE,
        )
      })

      it("keeps one account to its part of the share: others' approved clients are still fetched (found by a review)", async () => {
        // An account that approves its own clients (documents it serves) on its own tunnel.
        const own: string[] = []
        for (let i = 0; i < 3 * RESERVED_METADATA_FETCHES_PER_ACCOUNT; i++) {
          own.push(await approved(`/approved-own-${i}.json`))
        }
        const other = await newAccount('other')
        const theirs = await approved('/approved-theirs.json', other)
        // A client both approved draws on the other's part once the first's is spent.
        const both = await approved('/approved-both.json')
        await approved('/approved-both.json', other)
        clock += 2 * DAY
        await spendCommonBudget()
        const before = fetched.length
        // All at once, then again and again: its part, no more.
        await Promise.allSettled(own.map((id) => registry.find(id, '198.51.100.6')))
        for (const id of own) await registry.find(id, '198.51.100.7').catch(() => {})
        assert.equal(fetched.length - before, RESERVED_METADATA_FETCHES_PER_ACCOUNT)
        const refused = own.find((id) => !fetched.slice(before).includes(new URL(id).pathname))!
        await assert.rejects(registry.find(refused, '198.51.100.6'), /being fetched right now/)
        assert.equal((await registry.find(theirs, '198.51.100.8')).name, 'approved-theirs.json')
        assert.equal((await registry.find(both, '198.51.100.8')).name, 'approved-both.json')
        assert.deepEqual(fetched.slice(before + RESERVED_METADATA_FETCHES_PER_ACCOUNT), [
          '/approved-theirs.json',
          '/approved-both.json',
        ])
        // A minute on, its part is back.
        clock += 60_000
        await spendCommonBudget()
        assert.equal((await registry.find(refused, '198.51.100.6')).clientId, refused)
      })
    })
  }
})
