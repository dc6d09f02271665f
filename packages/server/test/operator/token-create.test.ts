/**
 * `burrowd token create` on SQLite always and PostgreSQL when TEST_DATABASE_URL is set: the secret
 * it prints (summary or `--json`) authenticates as the account and is stored only as a hash; names
 * default to "operator", are trimmed and refused when empty, too long or unprintable; an unknown
 * account is refused saying how to create it, creating nothing; repeated and concurrent runs (as
 * separate processes, as an operator's scripts run it) give distinct tokens. Then the built
 * binary (`npx tsc -b` first), for what an operator's script sees.
 */
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { loadConfig, type ServerConfig } from '../../src/config.js'
import { tokenCreate } from '../../src/operator/token-create.js'
import type { TokenCreateCommand } from '../../src/operator/parse-operator-args.js'
import { openStore } from '../../src/store/open-store.js'
import { StoreError } from '../../src/store/store-error.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const BIN = fileURLToPath(new URL('../../dist/bin/burrowd.js', import.meta.url))

const command = (over: Partial<TokenCreateCommand> = {}): TokenCreateCommand => ({
  command: 'token create',
  account: 'acme',
  name: null,
  json: false,
  ...over,
})

/** Run the built burrowd with `args` in `env` (and no other BURROW_ setting); what it printed. */
function runBurrowd(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  assert.ok(existsSync(BIN), `${BIN} is missing: run "npx tsc -b" first`)
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('BURROW_')),
  )
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...clean, ...env }, encoding: 'utf8', timeout: 30_000 },
      (error, stdout, stderr) => {
        const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null
        if (status === null) reject(error ?? new Error('no status'))
        else resolve({ status, stdout, stderr })
      },
    )
  })
}

/** The burrowd environment of a test database. */
const envOf = (database: TestDatabase): Record<string, string> => ({
  BURROW_DATA_DIR: database.config.dataDir,
  ...(database.config.databaseUrl ? { BURROW_DATABASE_URL: database.config.databaseUrl } : {}),
})

for (const backend of testBackends()) {
  describe(`burrowd token create on ${backend.name}`, () => {
    let database: TestDatabase
    let config: ServerConfig
    let store: Store
    let accountId: string

    beforeEach(async () => {
      database = await backend.create()
      config = loadConfig(envOf(database))
      store = await openStore(config)
      accountId = (await store.createAccount({ email: 'ops@example.com', slug: 'acme' })).id
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('prints a summary with the secret, which authenticates as the account', async () => {
      const out = await tokenCreate(command(), config)
      const secret = /^ {2}Token: (btk_\S+)$/m.exec(out)?.[1]
      assert.ok(secret, out)
      const [token] = await store.apiTokens.list(accountId)
      assert.equal(token!.name, 'operator')
      assert.ok(
        out.startsWith(`Created API token "operator" (${token!.id}) for account "acme".\n`),
        out,
      )
      assert.match(out, /shown only this once/)
      assert.ok(out.includes(`Authorization: Bearer ${secret}`))
      assert.deepEqual(await store.apiTokens.authenticate(secret), {
        accountId,
        tokenId: token!.id,
      })
    })

    it('prints one JSON line with --json, and stores only the secret’s hash', async () => {
      const out = await tokenCreate(command({ json: true, name: 'ci deploy' }), config)
      assert.ok(out.endsWith('\n') && out.trim().split('\n').length === 1, out)
      const printed = JSON.parse(out) as { id: string; token: string }
      assert.deepEqual(Object.keys(printed).sort(), ['id', 'token'])
      assert.match(printed.token, /^btk_/)
      assert.deepEqual(await store.apiTokens.authenticate(printed.token), {
        accountId,
        tokenId: printed.id,
      })
      const [token] = await store.apiTokens.list(accountId)
      assert.equal(token!.name, 'ci deploy')
      const rows = JSON.stringify(await store.db.selectFrom('api_tokens').selectAll().execute())
      assert.ok(!rows.includes(printed.token), 'the secret itself is stored')
      assert.ok(!rows.includes(printed.token.slice(4)), 'the secret itself is stored')
    })

    it('trims names, and refuses empty, overlong and unprintable ones, creating nothing', async () => {
      await tokenCreate(command({ name: '  nightly  ' }), config)
      assert.deepEqual(
        (await store.apiTokens.list(accountId)).map((t) => t.name),
        ['nightly'],
      )
      for (const name of ['', '   ', 'x'.repeat(101), 'line\nbreak', 'bell\u0007']) {
        await assert.rejects(
          tokenCreate(command({ name }), config),
          (err: unknown) =>
            err instanceof StoreError &&
            err.code === 'invalid' &&
            /1 to 100 printable/.test(err.message),
          JSON.stringify(name),
        )
      }
      assert.equal((await store.apiTokens.list(accountId)).length, 1)
    })

    it('refuses an unknown account, saying how to create it', async () => {
      await assert.rejects(tokenCreate(command({ account: 'nobody' }), config), (err: unknown) => {
        assert.ok(err instanceof StoreError)
        assert.equal(err.code, 'not_found')
        assert.equal(
          err.message,
          'no account with slug "nobody"; create it first: burrowd account create --email E --slug nobody',
        )
        return true
      })
      const rows = await store.db.selectFrom('api_tokens').selectAll().execute()
      assert.equal(rows.length, 0)
    })

    it('gives repeated and concurrent runs (eight processes at once) distinct working tokens', async () => {
      const outs = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          runBurrowd(
            ['token', 'create', '--account', 'acme', '--name', `worker ${i}`, '--json'],
            envOf(database),
          ),
        ),
      )
      for (const out of outs) assert.equal(out.status, 0, out.stderr)
      const printed = outs.map((o) => JSON.parse(o.stdout) as { id: string; token: string })
      assert.equal(new Set(printed.map((p) => p.id)).size, 8)
      assert.equal(new Set(printed.map((p) => p.token)).size, 8)
      for (const p of printed) {
        assert.deepEqual(await store.apiTokens.authenticate(p.token), { accountId, tokenId: p.id })
      }
      assert.equal((await store.apiTokens.list(accountId)).length, 8)
    })
  })
}

describe('burrowd token create, the built binary', () => {
  let database: TestDatabase
  let store: Store

  const burrowd = (args: readonly string[]) => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('BURROW_')),
    )
    const run = spawnSync(process.execPath, [BIN, ...args], {
      env: { ...clean, ...envOf(database) },
      encoding: 'utf8',
      timeout: 20_000,
    })
    return { status: run.status, stdout: run.stdout, stderr: run.stderr }
  }

  beforeEach(async () => {
    assert.ok(existsSync(BIN), `${BIN} is missing: run "npx tsc -b" first`)
    database = await testBackends()[0]!.create()
    store = await openStore(database.config)
    await store.createAccount({ email: 'ops@example.com', slug: 'acme' })
  })

  afterEach(async () => {
    await store.close()
    await database.drop()
  })

  it('prints {id, token} and exits 0', async () => {
    const run = burrowd([
      'token',
      'create',
      '--account',
      'acme',
      '--name',
      'from a script',
      '--json',
    ])
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stderr, '')
    const printed = JSON.parse(run.stdout) as { id: string; token: string }
    assert.equal((await store.apiTokens.authenticate(printed.token))?.tokenId, printed.id)
  })

  it('fails with one line saying what to do, for a bad command line or an unknown account', () => {
    for (const [args, message] of [
      [['token', 'create'], /--account/],
      [['token', 'create', '--account'], /--account/],
      [['token', 'create', '--account', 'acme', '--colour', 'red'], /colour/],
      [
        ['token', 'create', '--account', 'nobody'],
        /no account with slug "nobody"; create it first/,
      ],
    ] as const) {
      const run = burrowd(args)
      assert.equal(run.status, 1, `${args.join(' ')}: ${run.stdout}`)
      assert.equal(run.stdout, '')
      assert.match(run.stderr, /^burrowd: /)
      assert.match(run.stderr, message)
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
    }
  })
})
