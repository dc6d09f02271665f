/**
 * `burrowd usage set` as an operator meets it (the BUILT binary, `npx tsc -b` first): bad command
 * lines, an unknown tunnel, and each place the counters can be set: the durable row when no
 * burrowd runs (or a stale address answers nothing), Redis with BURROW_REDIS_URL, and refusals
 * when the address is not a burrowd, when the service counts in Redis, or has quotas off. The
 * running-service path is exercised end to end in test/e2e/quotas.test.ts.
 */
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { Redis } from 'ioredis'
import { freePort } from '../../../../test/helpers/free-port.js'
import { startService } from '../../../../test/helpers/stack.js'

const BIN = fileURLToPath(new URL('../../dist/bin/burrowd.js', import.meta.url))

interface Run {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

describe('burrowd usage set', () => {
  let dataDir: string
  let tunnelId: string

  /** Run `burrowd args` with only BURROW_DATA_DIR and the given BURROW_* variables. */
  const cleanEnv = (env: Record<string, string> = {}) => ({
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('BURROW_')),
    ),
    BURROW_DATA_DIR: dataDir,
    ...env,
  })
  const burrowd = (args: readonly string[], env: Record<string, string> = {}): Run => {
    const result = spawnSync(process.execPath, [BIN, ...args], {
      env: cleanEnv(env),
      encoding: 'utf8',
      timeout: 20_000,
    })
    return { status: result.status, stdout: result.stdout, stderr: result.stderr }
  }
  const fails = (run: Run, message: RegExp) => {
    assert.equal(run.status, 1, `expected exit 1; stdout: ${run.stdout}`)
    assert.equal(run.stdout, '')
    assert.match(run.stderr, /^burrowd: /)
    assert.match(run.stderr, message)
  }
  const set = (args: readonly string[], env?: Record<string, string>) => {
    const run = burrowd(['usage', 'set', '--tunnel', tunnelId, ...args, '--json'], env)
    assert.equal(run.status, 0, run.stderr)
    return JSON.parse(run.stdout) as Record<string, unknown>
  }
  const sql = <T>(query: string, ...params: unknown[]): T | undefined => {
    const db = new Database(join(dataDir, 'burrow.db'))
    try {
      return db.prepare(query).get(...params) as T | undefined
    } finally {
      db.close()
    }
  }
  const putSetting = (key: string, value: string) =>
    sql(
      'insert into settings (key, value) values (?, ?) on conflict (key) do update set value = excluded.value returning key',
      key,
      value,
    )

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'burrowd-usage-'))
    assert.equal(burrowd(['account', 'create', '--email', 'u@x.io', '--slug', 'acme']).status, 0)
    const created = burrowd(['tunnel', 'create', '--account', 'acme', '--json'])
    tunnelId = (JSON.parse(created.stdout) as { id: string }).id
  })

  after(async () => {
    await rm(dataDir, { recursive: true, force: true })
  })

  it('refuses bad command lines with a message saying what to do', () => {
    fails(burrowd(['usage']), /"burrowd usage" needs a subcommand: set/)
    fails(burrowd(['usage', 'get']), /the only one is "burrowd usage set"/)
    fails(burrowd(['usage', 'set', '--tool-calls', '1']), /missing --tunnel/)
    fails(burrowd(['usage', 'set', '--tunnel', tunnelId]), /give --tool-calls, --bandwidth-bytes/)
    for (const bad of ['-1', '1.5', 'ten', '1e3', '99999999999999999', '']) {
      fails(burrowd(['usage', 'set', '--tunnel', tunnelId, '--tool-calls', bad]), /--tool-calls/)
    }
    fails(
      burrowd(['usage', 'set', '--tunnel', tunnelId, '--calls', '1']),
      /unknown option "--calls"/,
    )
  })

  it('refuses a tunnel that does not exist', () => {
    fails(
      burrowd(['usage', 'set', '--tunnel', 'tun_nope', '--tool-calls', '1']),
      /no tunnel with id "tun_nope"/,
    )
  })

  it('writes the durable row when no burrowd has run, for the next start to load', () => {
    const run = burrowd(['usage', 'set', '--tunnel', tunnelId, '--tool-calls', '99999'])
    assert.equal(run.status, 0, run.stderr)
    assert.match(run.stdout, /no burrowd has run on this database yet/)
    assert.match(run.stdout, /tool calls {7}99,999/)
    const row = sql<{ value: number }>(
      "select value from usage_counters where tunnel_id = ? and metric = 'tool_calls'",
      tunnelId,
    )
    assert.equal(row?.value, 99_999)
  })

  it('writes the durable row when nothing answers at the recorded address', async () => {
    putSetting('admin_url', `http://127.0.0.1:${await freePort()}`)
    putSetting('admin_secret', 'not-used')
    const result = set(['--bandwidth-bytes', '1234'])
    assert.equal(result.applied, 'database')
    assert.deepEqual([result.tool_calls, result.bandwidth_bytes], [99_999, 1234])
    assert.match(String(result.period), /^\d{4}-\d{2}$/)
  })

  it('refuses when the recorded address answers but is not a burrowd taking it', async () => {
    const server: Server = createServer((_req, res) => res.writeHead(404).end('nope'))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      putSetting('admin_url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`)
      // Not spawnSync: this process must keep serving while the command runs.
      const run = await new Promise<Run>((resolve) => {
        execFile(
          process.execPath,
          [BIN, 'usage', 'set', '--tunnel', tunnelId, '--tool-calls', '1'],
          { env: cleanEnv(), timeout: 20_000 },
          (error, stdout, stderr) =>
            resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        )
      })
      fails(run, /refused the change: HTTP 404; is the process at that address a burrowd/)
    } finally {
      server.close()
    }
  })

  it('refuses to guess when the service counts in Redis and no Redis is given', () => {
    putSetting('live_counters', 'redis')
    try {
      fails(
        burrowd(['usage', 'set', '--tunnel', tunnelId, '--tool-calls', '1']),
        /counters in Redis: run this command with the same BURROW_REDIS_URL/,
      )
    } finally {
      putSetting('live_counters', 'memory')
    }
  })

  const redisUrl = process.env.TEST_REDIS_URL
  it('writes Redis directly with BURROW_REDIS_URL', { skip: !redisUrl }, async () => {
    const result = set(['--tool-calls', '42'], { BURROW_REDIS_URL: redisUrl! })
    assert.equal(result.applied, 'redis')
    const redis = new Redis(redisUrl!)
    try {
      const key = `burrow:q:${tunnelId}:${String(result.period)}:tool_calls`
      assert.equal(await redis.get(key), '42')
      await redis.del(key)
    } finally {
      await redis.quit()
    }
  })

  it('says so when the running burrowd has quotas off', async () => {
    const service = await startService({ BURROW_QUOTAS: 'off', BURROW_LOG: 'warn' })
    try {
      const tunnel = await service.tunnel('off')
      const run = spawnSync(
        process.execPath,
        [BIN, 'usage', 'set', '--tunnel', tunnel.id, '--tool-calls', '1'],
        { env: service.env, encoding: 'utf8', timeout: 20_000 },
      )
      assert.equal(run.status, 1)
      assert.match(run.stderr, /quotas are off in this burrowd \(BURROW_QUOTAS=off\)/)
    } finally {
      await service.close()
    }
  })
})
