/**
 * A real burrowd on PostgreSQL, through a proxy that can freeze as a stalled database does: the
 * requests that need the database while it stalls are answered `503` with `Retry-After` once
 * `BURROW_DATABASE_TIMEOUT_SECS` has passed (the envelope with the request's id on a tunnel's
 * host, the API's error under `/api/`), and served again once it answers. Before, each waited
 * for as long as the stall lasted, and `burrowd serve` on a database that accepted connections
 * and never answered waited at start for ever. Found by a hostile review.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { rawUpgrade } from '../../packages/server/test/helpers/raw-upgrade.js'
import {
  startFreezableProxy,
  type FreezableProxy,
} from '../../packages/server/test/helpers/freezable-proxy.js'
import {
  testBackends,
  type TestDatabase,
} from '../../packages/server/test/helpers/test-databases.js'
import { startChild, type Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { BURROWD } from '../helpers/stack.js'

const run = promisify(execFile)
const postgres = testBackends().find((b) => b.name === 'postgres')

describe(
  'burrowd while its PostgreSQL stalls',
  { skip: !postgres && 'needs TEST_DATABASE_URL', timeout: 120_000 },
  () => {
    let database: TestDatabase
    let proxy: FreezableProxy
    let burrowd: Child
    let port: number
    let env: NodeJS.ProcessEnv

    before(async () => {
      database = await postgres!.create()
      const target = new URL(database.config.databaseUrl!)
      proxy = await startFreezableProxy(target.hostname, Number(target.port || 5432))
      const through = new URL(target)
      through.port = String(proxy.port)
      port = await freePort()
      env = {
        ...process.env,
        BURROW_DATABASE_URL: through.toString(),
        BURROW_DATABASE_TIMEOUT_SECS: '1',
        BURROW_DATA_DIR: mkdtempSync(join(tmpdir(), 'burrow-db-stall-')),
        BURROW_LISTEN: `127.0.0.1:${port}`,
        BURROW_LOG: 'info',
      }
      await run(
        process.execPath,
        [BURROWD, 'account', 'create', '--email', 'stall@example.com', '--slug', 'acme', '--json'],
        { env },
      )
      const { stdout } = await run(
        process.execPath,
        [BURROWD, 'token', 'create', '--account', 'acme', '--name', 'stall', '--json'],
        { env },
      )
      token = (JSON.parse(stdout) as { token: string }).token
      burrowd = startChild(process.execPath, [BURROWD, 'serve'], { env })
      await burrowd.waitFor(/burrowd listening/)
    })

    after(async () => {
      proxy?.thaw()
      await burrowd?.stop()
      await proxy?.close()
      await database?.drop()
    })

    let token: string
    const listTunnels = () =>
      fetch(`http://127.0.0.1:${port}/api/tunnels`, {
        headers: { authorization: `Bearer ${token}` },
      })
    const call = (id: number) =>
      publicFetch(`http://never-seen--acme.localhost:${port}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
      })

    it('answers 503 with Retry-After while it stalls, and serves once it answers', async () => {
      const before = await listTunnels()
      assert.equal(before.status, 200)
      proxy.freeze()
      // Concurrent, on the API and on a tunnel's host: each is answered.
      const [apis, calls] = await Promise.all([
        Promise.all(Array.from({ length: 5 }, () => listTunnels())),
        Promise.all(Array.from({ length: 5 }, (_, i) => call(i))),
      ])
      for (const res of apis) {
        assert.equal(res.status, 503)
        assert.equal(res.headers.get('retry-after'), '5')
        const body = (await res.json()) as { error: { code: string; message: string } }
        assert.equal(body.error.code, 'unavailable')
        assert.match(body.error.message, /database/)
      }
      for (const [i, res] of calls.entries()) {
        assert.equal(res.status, 503)
        assert.equal(res.headers.get('retry-after'), '5')
        const body = (await res.json()) as { id: unknown; error: { data: { reason: string } } }
        assert.equal(body.id, i)
        assert.match(body.error.data.reason, /database/)
      }
      // A tunnel client's key cannot be checked: it is told to come back, and when.
      const upgrade = await rawUpgrade(port, {
        authorization: 'Bearer mtk_never_seen_during_stall',
      })
      assert.equal(upgrade.kind, 'response')
      if (upgrade.kind === 'response') {
        assert.equal(upgrade.status, 503)
        assert.equal(upgrade.headers['retry-after'], '5')
      }
      proxy.thaw()
      const again = await listTunnels()
      assert.equal(again.status, 200)
    })

    it('answers a call to a name that may be a custom domain with the envelope and its id', async () => {
      // Whether mcp.example.test is a custom domain is read from the database, which stalls:
      // the call was answered the app's plain-text 503, which no MCP client can match to it.
      proxy.freeze()
      try {
        const res = await publicFetch(`http://mcp.example.test:${port}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 'custom-7', method: 'tools/list' }),
        })
        assert.equal(res.status, 503)
        assert.equal(res.headers.get('retry-after'), '5')
        assert.equal(res.headers.get('x-burrow-error'), 'tunnel_offline')
        const body = (await res.json()) as { id: unknown; error: { data: { reason: string } } }
        assert.equal(body.id, 'custom-7')
        assert.match(body.error.data.reason, /database/)
      } finally {
        proxy.thaw()
      }
    })

    it('stops at start, saying why, on a database that never answers', async () => {
      const held: Socket[] = []
      const silent = createServer((socket) => held.push(socket))
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
      try {
        const silentPort = (silent.address() as AddressInfo).port
        const starting = startChild(process.execPath, [BURROWD, 'serve'], {
          env: {
            ...env,
            BURROW_DATABASE_URL: `postgres://postgres@127.0.0.1:${silentPort}/test`,
            BURROW_LISTEN: '127.0.0.1:0',
          },
        })
        const code = await starting.exited
        assert.notEqual(code, 0)
        assert.match(starting.stderr, /cannot open the PostgreSQL database.*timeout/is)
      } finally {
        for (const socket of held) socket.destroy()
        await new Promise<void>((resolve) => silent.close(() => resolve()))
      }
    })
  },
)
