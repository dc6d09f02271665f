// Crash reports and the update check through the real binaries: a `burrow` that crashes sends a
// report the real burrowd stores (and lists with `burrowd crash-reports list`), nothing at all
// with --no-telemetry, and `up` prints the newer-release line once against a burrowd announcing
// 99.0.0, nothing with --no-update-check.
//
// The deliberate crash relies on the hidden BURROW_TEST_CRASH=1 of bin/burrow.ts: `up` throws an
// uncaught error ("BURROW_TEST_CRASH: …") right after printing the telemetry banner.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { startChild, type Child } from '../helpers/child.js'
import { BURROW, BURROWD, ROOT, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const count = (text: string, pattern: RegExp) =>
  text.match(new RegExp(pattern.source, 'g'))?.length ?? 0

const CLI_VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')) as { version: string }
).version
const NEWER_LINE = /A newer burrow is available: 99\.0\.0 \(you have \d+\.\d+\.\d+[^)]*\)/
/** Nothing listens here: `up` forwards to it without ever needing it. */
const UPSTREAM = 'http://127.0.0.1:9/mcp'

interface StoredReport {
  readonly id: string
  readonly client_version: string
  readonly os: string
  readonly arch: string
  readonly node: string
  readonly kind: string
  readonly message: string
  readonly stack: string
  readonly command: string | null
}

describe('burrow crash reports and update check against a real burrowd', () => {
  let service: Service
  let key: string
  const homes: string[] = []

  /** A fresh home (and cache directory) so no state of the developer's leaks in or out. */
  const freshHome = () => {
    const home = mkdtempSync(join(tmpdir(), 'burrow-e2e-home-'))
    homes.push(home)
    return home
  }
  /** The environment of a `burrow` process: no BURROW_* of the test runner, a home of its own. */
  const cliEnv = (home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BURROW_'))),
    HOME: home,
    USERPROFILE: home,
    XDG_CACHE_HOME: join(home, '.cache'),
    LOCALAPPDATA: join(home, 'AppData', 'Local'),
    BURROW_API_KEY: key,
    ...extra,
  })
  const burrow = (home: string, args: readonly string[], extra: NodeJS.ProcessEnv = {}): Child =>
    startChild(process.execPath, [BURROW, '--broker', service.broker, ...args], {
      env: cliEnv(home, extra),
    })
  /** Wait for a process to end; fails the test when it does not within `ms`. */
  const exitOf = async (child: Child, ms = 20_000) => {
    const timer = setTimeout(() => child.proc.kill('SIGKILL'), ms)
    const code = await child.exited
    clearTimeout(timer)
    return code
  }
  const storedReports = async (): Promise<StoredReport[]> => {
    const { stdout } = await run(
      process.execPath,
      [BURROWD, 'crash-reports', 'list', '--json', '--limit', '1000'],
      { env: service.env },
    )
    return (JSON.parse(stdout) as { crash_reports: StoredReport[] }).crash_reports
  }

  before(async () => {
    service = await startService({ BURROW_LOG: 'info', BURROW_CLIENT_LATEST_VERSION: '99.0.0' })
    key = (await service.tunnel('telemetry')).key
  })
  after(async () => {
    await service?.close()
    for (const home of homes) rmSync(home, { recursive: true, force: true })
  })

  // Runs first, while the service's crash_reports table is still empty.
  it('--no-telemetry / BURROW_NO_TELEMETRY=1: a crash sends nothing; burrowd stores nothing', async () => {
    const flagged = burrow(freshHome(), ['--no-telemetry', 'up', '--upstream', UPSTREAM], {
      BURROW_TEST_CRASH: '1',
    })
    assert.notEqual(await exitOf(flagged), 0, 'the crash still ends the process with an error')
    assert.match(flagged.stdout, /^Crash reports are disabled/)
    assert.match(flagged.stderr, /BURROW_TEST_CRASH/)
    const byEnv = burrow(freshHome(), ['up', '--upstream', UPSTREAM], {
      BURROW_TEST_CRASH: '1',
      BURROW_NO_TELEMETRY: '1',
    })
    assert.notEqual(await exitOf(byEnv), 0)
    assert.match(byEnv.stdout, /^Crash reports are disabled/)
    assert.deepEqual(await storedReports(), [])
  })

  it('a burrow that crashes sends a report that burrowd stores and lists', async () => {
    const cli = burrow(freshHome(), ['up', '--upstream', UPSTREAM], { BURROW_TEST_CRASH: '1' })
    const code = await exitOf(cli)
    assert.notEqual(code, 0, `exit ${code}`)
    assert.match(cli.stdout, /^Crash reports are enabled/)
    const reports = await storedReports()
    assert.equal(reports.length, 1, `stored: ${JSON.stringify(reports)}\n${cli.stderr}`)
    const [report] = reports
    assert.equal(report!.kind, 'uncaught')
    assert.equal(report!.command, 'up')
    assert.equal(report!.client_version, CLI_VERSION)
    assert.equal(report!.os, process.platform)
    assert.equal(report!.arch, process.arch)
    assert.equal(report!.node, process.version)
    assert.match(report!.message, /BURROW_TEST_CRASH/)
    assert.match(report!.stack, /BURROW_TEST_CRASH[^\n]*\n\s+at /)
    assert.ok(!JSON.stringify(report).includes(key), 'the tunnel key never leaves the machine')
  })

  it('up prints the newer-release line once, and not again the same day', async () => {
    const home = freshHome()
    const first = burrow(home, ['up', '--upstream', UPSTREAM])
    try {
      await first.waitFor(NEWER_LINE)
      await first.waitFor(/Tunnel online/)
      await sleep(500)
      assert.equal(count(first.stdout + first.stderr, /A newer burrow is available/), 1)
    } finally {
      await first.stop()
    }
    assert.ok(existsSync(join(home, '.cache', 'burrow', 'update-check.json')), 'state is kept')

    const second = burrow(home, ['up', '--upstream', UPSTREAM])
    try {
      await second.waitFor(/Tunnel online/)
      await sleep(1500)
      assert.equal(count(second.stdout + second.stderr, /A newer burrow is available/), 0)
    } finally {
      await second.stop()
    }
  })

  it('--no-update-check / BURROW_NO_UPDATE_CHECK=1: no line, and the service is not asked', async () => {
    for (const [args, env] of [
      [['--no-update-check', 'up', '--upstream', UPSTREAM], {}],
      [['up', '--upstream', UPSTREAM], { BURROW_NO_UPDATE_CHECK: '1' }],
    ] as const) {
      const home = freshHome()
      const cli = burrow(home, args, env)
      try {
        await cli.waitFor(/Tunnel online/)
        await sleep(1500)
        assert.equal(count(cli.stdout + cli.stderr, /A newer burrow is available/), 0)
        assert.ok(!existsSync(join(home, '.cache', 'burrow')), 'no update check ran')
      } finally {
        await cli.stop()
      }
    }
  })
})
