/**
 * End-to-end tests of burrowd's operator commands (listed in docs/configuration.md): they spawn the
 * BUILT binary (`npx tsc -b` first) with a temporary BURROW_DATA_DIR and check what an operator or
 * a script sees: stdout, stderr and the exit status.
 */

import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'

const BIN = fileURLToPath(new URL('../../dist/bin/burrowd.js', import.meta.url))
const PACKAGE_JSON = new URL('../../package.json', import.meta.url)
const CONFIGURATION_MD = new URL('../../../../docs/configuration.md', import.meta.url)

interface Run {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

let dataDir: string

/** Run `burrowd args` with only the given BURROW_* variables (plus BURROW_DATA_DIR). */
function burrowd(args: readonly string[], env: Record<string, string> = {}): Run {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('BURROW_')),
  )
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...clean, BURROW_DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** Run a command that must succeed with `--json`, and return its one JSON object. */
function json(args: readonly string[], env?: Record<string, string>): Record<string, unknown> {
  const run = burrowd([...args, '--json'], env)
  assert.equal(run.status, 0, `burrowd ${args.join(' ')} failed: ${run.stderr}`)
  assert.equal(run.stderr, '')
  assert.equal(run.stdout.trim().split('\n').length, 1, 'expected exactly one line of JSON')
  return JSON.parse(run.stdout) as Record<string, unknown>
}

/** Assert that a run failed with status 1, nothing on stdout and `burrowd: <message>`. */
function fails(run: Run, message: RegExp): void {
  assert.equal(run.status, 1, `expected exit 1; stdout: ${run.stdout}`)
  assert.equal(run.stdout, '')
  assert.match(run.stderr, /^burrowd: /)
  assert.match(run.stderr, message)
  assert.equal(run.stderr.trim().split('\n').length, 1, `expected one line, got: ${run.stderr}`)
}

describe('burrowd operator commands', () => {
  before(async () => {
    assert.ok(existsSync(BIN), `${BIN} is missing: run "npx tsc -b" first`)
    dataDir = await mkdtemp(join(tmpdir(), 'burrowd-operator-'))
  })

  after(async () => {
    await rm(dataDir, { recursive: true, force: true })
  })

  it('prints help listing commands, flags and BURROW_* variables', () => {
    const run = burrowd(['--help'])
    assert.equal(run.status, 0)
    for (const text of [
      'burrowd serve',
      'burrowd migrate',
      'burrowd account create --email E --slug S',
      'burrowd tunnel create --account SLUG',
      '--plan',
      '--name',
      '--subdomain',
      '--json',
      'BURROW_LISTEN',
      'BURROW_ZONE',
      'BURROW_PUBLIC_SCHEME',
      'BURROW_PUBLIC_PORT',
      'BURROW_DATA_DIR',
      'BURROW_DATABASE_URL',
      'BURROW_MAX_BODY_BYTES',
      'BURROW_RESUME_GRACE_SECS',
      'BURROW_QUEUE_WAIT_MS',
      'BURROW_HEARTBEAT_SECS',
      'BURROW_MEMORY_RELEASE_SECS',
      'BURROW_LOG',
      'burrowd usage set --tunnel ID',
      '--tool-calls',
      '--bandwidth-bytes',
      'BURROW_REDIS_URL',
      'BURROW_QUOTAS',
      'BURROW_SESSION_IDLE_SECS',
      'BURROW_METER_SNAPSHOT_SECS',
      'BURROW_DNS_SERVERS',
      'BURROW_SMTP_URL',
      'BURROW_MAIL_FROM',
      '--password-stdin',
    ]) {
      assert.ok(run.stdout.includes(text), `help lacks "${text}"`)
    }
    assert.equal(burrowd(['tunnel', 'create', '--help']).stdout, run.stdout)
  })

  it('--help names every variable docs/configuration.md gives burrowd', () => {
    const help = burrowd(['--help']).stdout
    const docs = readFileSync(CONFIGURATION_MD, 'utf8')
    const section = docs.slice(docs.indexOf('\n## burrowd\n'), docs.indexOf('\n## burrow\n'))
    const documented = new Set(section.match(/`BURROW_[A-Z0-9_]+`/g)?.map((v) => v.slice(1, -1)))
    assert.ok(documented.size > 30, `found only ${documented.size} variables in the docs`)
    const missing = [...documented].filter((name) => !help.includes(name))
    assert.deepEqual(missing, [], `burrowd --help lacks ${missing.join(', ')}`)
  })

  it('prints its version', () => {
    const { version } = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }
    const run = burrowd(['--version'])
    assert.equal(run.status, 0)
    assert.equal(run.stdout, `burrowd ${version}\n`)
  })

  it('migrates the database and reports when it is up to date', () => {
    const first = burrowd(['migrate'])
    assert.equal(first.status, 0, first.stderr)
    assert.match(first.stdout, /applied 001_accounts_tunnels/)
    assert.ok(first.stdout.includes(join(dataDir, 'burrow.db')))
    assert.match(burrowd(['migrate']).stdout, /is up to date/)
  })

  it('creates an account with a verified address and prints {id, email, slug, plan}', () => {
    const account = json(['account', 'create', '--email', 'Ann@Example.com', '--slug', 'acme'])
    assert.deepEqual(Object.keys(account), ['id', 'email', 'slug', 'plan'])
    assert.match(String(account.id), /^acc_/)
    assert.deepEqual(
      { ...account, id: 'x' },
      { id: 'x', email: 'ann@example.com', slug: 'acme', plan: 'free' },
    )
    const pro = json([
      'account',
      'create',
      '--email',
      'p@x.io',
      '--slug',
      'pro-co',
      '--plan',
      'pro',
    ])
    assert.equal(pro.plan, 'pro')
    const db = new Database(join(dataDir, 'burrow.db'), { readonly: true })
    try {
      const row = db
        .prepare('select email_verified_at from accounts where slug = ?')
        .get('acme') as { email_verified_at: string | null }
      assert.ok(row.email_verified_at, 'the operator vouches for the address')
    } finally {
      db.close()
    }
  })

  it('sets the password from one line of stdin, stored as a scrypt hash, and refuses weak ones', () => {
    const withInput = (input: string, slug: string) =>
      spawnSync(
        process.execPath,
        [
          BIN,
          'account',
          'create',
          '--email',
          `${slug}@x.io`,
          '--slug',
          slug,
          '--password-stdin',
          '--json',
        ],
        {
          env: { ...process.env, BURROW_DATA_DIR: dataDir },
          input,
          encoding: 'utf8',
          timeout: 20_000,
        },
      )
    const made = withInput('correct horse battery\nsecond line ignored\n', 'pw-set')
    assert.equal(made.status, 0, made.stderr)
    assert.ok(!made.stdout.includes('correct horse'), 'the password is printed')
    const db = new Database(join(dataDir, 'burrow.db'), { readonly: true })
    try {
      const row = db.prepare('select password_hash from accounts where slug = ?').get('pw-set') as {
        password_hash: string | null
      }
      assert.ok(row.password_hash?.startsWith('scrypt'), String(row.password_hash))
      assert.ok(!(row.password_hash ?? '').includes('correct horse'))
    } finally {
      db.close()
    }
    for (const [input, slug, message] of [
      ['', 'pw-empty', /at least 8 characters/],
      ['aaaaaaaaaaaa\n', 'pw-repeat', /one character repeated/],
      ['x'.repeat(70_000), 'pw-huge', /at most/],
    ] as const) {
      const refused = withInput(input, slug)
      assert.equal(refused.status, 1, `${slug}: ${refused.stdout}`)
      assert.match(refused.stderr, message)
    }
  })

  it('prints a friendly summary without --json', () => {
    const run = burrowd(['account', 'create', '--email', 'text@x.io', '--slug', 'texty'])
    assert.equal(run.status, 0, run.stderr)
    assert.match(run.stdout, /Created account "texty" \(acc_[0-9a-f]+\) for text@x\.io/)
    assert.throws(() => JSON.parse(run.stdout) as unknown)
  })

  it('creates tunnels with different keys and subdomains, storing only key hashes', () => {
    const first = json(['tunnel', 'create', '--account', 'acme', '--name', 'Docs'])
    const second = json(['tunnel', 'create', '--account', 'acme', '--name', 'Docs'])
    for (const tunnel of [first, second]) {
      assert.deepEqual(Object.keys(tunnel), ['id', 'subdomain', 'public_url', 'key', 'access'])
      assert.deepEqual(tunnel.access, { mode: 'oauth', allow_ips: [] })
      assert.match(String(tunnel.key), /^mtk_[A-Za-z0-9_-]{43}$/)
      assert.equal(tunnel.public_url, `http://${String(tunnel.subdomain)}--acme.localhost:7100`)
    }
    assert.equal(first.subdomain, 'docs')
    assert.notEqual(second.subdomain, first.subdomain)
    assert.notEqual(second.key, first.key)

    const db = new Database(join(dataDir, 'burrow.db'), { readonly: true })
    try {
      const rows = db.prepare('select * from tunnels').all() as Record<string, unknown>[]
      for (const { id, key } of [first, second]) {
        const row = rows.find((r) => r.id === id)
        assert.ok(row, `no row for ${String(id)}`)
        assert.equal(row.key_hash, createHash('sha256').update(String(key)).digest('hex'))
        assert.ok(!JSON.stringify(rows).includes(String(key)), 'a key is stored in clear')
      }
    } finally {
      db.close()
    }
  })

  it('sets the access mode and allowlist with --access and --allow-ip, refusing bad ones', () => {
    const tunnel = json([
      'tunnel',
      'create',
      '--account',
      'acme',
      '--access',
      'token',
      '--allow-ip',
      '10.0.0.0/8',
      '--allow-ip',
      '::1',
    ])
    assert.deepEqual(tunnel.access, { mode: 'token', allow_ips: ['10.0.0.0/8', '::1/128'] })
    const db = new Database(join(dataDir, 'burrow.db'), { readonly: true })
    try {
      const row = db
        .prepare('select mode, allow_ips from tunnel_access where tunnel_id = ?')
        .get(tunnel.id) as { mode: string; allow_ips: string }
      assert.deepEqual(row, { mode: 'token', allow_ips: '["10.0.0.0/8","::1/128"]' })
    } finally {
      db.close()
    }
    fails(
      burrowd(['tunnel', 'create', '--account', 'acme', '--access', 'open']),
      /--access must be oauth, token or public, not "open"/,
    )
    fails(
      burrowd(['tunnel', 'create', '--account', 'acme', '--allow-ip', '10.0.0.0/40']),
      /--allow-ip: "10\.0\.0\.0\/40" is not an IP address or CIDR/,
    )
  })

  it('uses an explicit subdomain and the configured zone', () => {
    const tunnel = json(['tunnel', 'create', '--account', 'acme', '--subdomain', 'api'], {
      BURROW_ZONE: 'tunnels.example.com',
    })
    assert.equal(tunnel.subdomain, 'api')
    assert.equal(tunnel.public_url, 'https://api--acme.tunnels.example.com')
    fails(
      burrowd(['tunnel', 'create', '--account', 'acme', '--subdomain', 'api']),
      /subdomain "api" is taken/,
    )
  })

  it('says the key is shown only once in its summary', () => {
    const run = burrowd(['tunnel', 'create', '--account', 'acme', '--name', 'summary'])
    assert.equal(run.status, 0, run.stderr)
    assert.match(run.stdout, /MCP endpoint: http:\/\/summary--acme\.localhost:7100\/mcp/)
    assert.match(run.stdout, /Key: +mtk_/)
    assert.match(run.stdout, /shown only this once/)
  })

  it('refuses a taken slug or email, an unknown account and invalid values', () => {
    fails(
      burrowd(['account', 'create', '--email', 'b@x.io', '--slug', 'acme']),
      /account slug "acme" is taken/,
    )
    fails(
      burrowd(['account', 'create', '--email', 'ann@example.com', '--slug', 'other']),
      /ann@example\.com.*already/,
    )
    fails(burrowd(['tunnel', 'create', '--account', 'nope']), /no account with slug "nope"/)
    fails(
      burrowd(['account', 'create', '--email', 'x@y.z', '--slug', 'Bad_Slug']),
      /slug "Bad_Slug"/,
    )
    fails(burrowd(['account', 'create', '--email', 'not-an-email', '--slug', 'ok']), /email/)
    fails(
      burrowd(['account', 'create', '--email', 'x@y.z', '--slug', 'gold', '--plan', 'gold']),
      /--plan "gold" is not a plan; use one of free, pro, scale/,
    )
    fails(
      burrowd(['tunnel', 'create', '--account', 'acme', '--subdomain', 'No--Good']),
      /subdomain "No--Good"/,
    )
  })

  it('refuses bad command lines with a message saying what to do', () => {
    fails(
      burrowd(['account', 'create', '--slug', 'x']),
      /missing --email; usage: burrowd account create/,
    )
    fails(burrowd(['tunnel', 'create']), /missing --account/)
    fails(
      burrowd(['account', 'create', '--email', 'x@y.z', '--slug', 'x', '--bogus']),
      /unknown option "--bogus" for "burrowd account create"/,
    )
    fails(burrowd(['tunnel', 'create', '--account']), /option --account needs a value/)
    fails(
      burrowd(['tunnel', 'create', '--account', 'acme', '--json=yes']),
      /--json does not take a value/,
    )
    fails(burrowd(['tunnel', 'create', 'acme']), /unexpected argument "acme"/)
    fails(burrowd(['tunnel', 'delete']), /unknown command "burrowd tunnel delete"/)
    fails(burrowd(['frobnicate']), /unknown command "frobnicate"/)
    fails(burrowd(['--frobnicate']), /unknown option "--frobnicate"/)
  })

  it('refuses bad configuration before touching the database', () => {
    fails(
      burrowd(['migrate'], { BURROW_LISTEN: 'localhost' }),
      /BURROW_LISTEN="localhost" is not valid; expected HOST:PORT/,
    )
    fails(
      burrowd(['account', 'create', '--email', 'c@x.io', '--slug', 'c'], {
        BURROW_DATABASE_URL: 'mysql://db/burrow',
      }),
      /BURROW_DATABASE_URL="mysql:\/\/db\/burrow" is not valid/,
    )
    fails(
      burrowd(['tunnel', 'create', '--account', 'acme'], { BURROW_LISTEN: '127.0.0.1:0' }),
      /set BURROW_PUBLIC_PORT/,
    )
  })
})
