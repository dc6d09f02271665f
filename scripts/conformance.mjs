#!/usr/bin/env node
// The MCP conformance suite through a tunnel (`.ci/run` calls this after `npm test`; it builds
// nothing, so run `npm run build` first). Starts our conformant fixture server
// (test/fixtures/conformance-server.ts), a real burrowd on a temp data dir with one account and
// tunnel, and `burrow up --upstream` to the fixture; then runs
// `@modelcontextprotocol/conformance server` twice, directly against the fixture and against the
// tunnel's public URL, and compares the two per scenario.
//
// Exit 0 only when every scenario that passes directly also passes through the tunnel.
// dns-rebinding-protection needs a localhost URL by design (it checks that a *local* server
// refuses foreign Host/Origin headers), so through the public `*.localhost` hostname it is
// reported as n/a. The suite's Node cannot resolve `<sub>--<slug>.localhost` on its own here:
// the tunnel run preloads test/helpers/localhost-dns.mjs through NODE_OPTIONS.
//
// CONFORMANCE_SPEC=2026-07-28 runs the 2026-07-28 requirements instead
// (`@modelcontextprotocol/conformance@0.2.0-alpha.12 --requirements 2026-07-28`) against
// test/fixtures/conformance-2026-server.ts (v2 SDK), directly and through three tunnels: the HTTP
// relay (`--upstream`), the MCP front over the same server on stdio (`--stdio`, the front speaks
// 2025 to it and 2026-07-28 to the suite), and the aggregator over it and a second stdio server.
// Through stdio and the aggregator some scenarios cannot pass by construction (listed in
// TRANSLATION_LIMITS with the reason and the failure it causes: failing any other way is a
// regression); every other scenario that passes directly must pass.
//
// Environment: CONFORMANCE_TIMEOUT_MS bounds the whole run (default 600000), CONFORMANCE_OUT
// names the directory for logs and results (default: a new temp dir), and CONFORMANCE_SUITE
// picks the suite's --suite (default: its own default, "active"; "all" adds pending scenarios).
// Children are always stopped, also on failure, timeout, Ctrl-C or SIGTERM.
import { execFile, spawn } from 'node:child_process'
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BURROWD = join(ROOT, 'packages/server/dist/bin/burrowd.js')
const BURROW = join(ROOT, 'packages/cli/dist/bin/burrow.js')
const SPEC = process.env.CONFORMANCE_SPEC || '2025-11-25'
const MODERN = SPEC === '2026-07-28'
const FIXTURE = join(
  ROOT,
  MODERN ? 'test/fixtures/conformance-2026-server.ts' : 'test/fixtures/conformance-server.ts',
)
const DNS_PRELOAD = join(ROOT, 'test/helpers/localhost-dns.mjs')
const SUITE_PACKAGE = `@modelcontextprotocol/conformance@${MODERN ? '0.2.0-alpha.12' : '0.1.16'}`
const SUITE = ['-y', '-p', 'node@22', '-p', SUITE_PACKAGE, '--']
/** The tunnels of a run: the relay always; for 2026-07-28 also the front over stdio and the aggregator. */
const MODES = MODERN ? ['http', 'stdio', 'aggregator'] : ['http']
/**
 * Scenarios that cannot pass through a mode by construction, with why, and the failure that
 * construction causes: a scenario is excused only when each of its failures is that one (any
 * other failure through the mode is a regression). The front speaks 2025 to a stdio server, so
 * what only a 2026-07-28 server can say does not cross it; the aggregator also prefixes tool and
 * prompt names with the upstream's name, so the suite's fixed names are unknown there (the calls
 * themselves are tested through the aggregator in test/e2e/modern-agents.test.ts).
 */
const KEYS_LOST = {
  why: 'a 2025 connection carries no input keys; burrow names them (elicitation-1)',
  failure: /inputRequests missing expected key/,
}
const UNKNOWN_NAME = /unknown (tool|prompt) "[^"]+": (tool|prompt) names here are "<upstream>__/
const PREFIXED = {
  why: 'the aggregator names tools and prompts <upstream>__<name>',
  failure: UNKNOWN_NAME,
}
/** Scenarios whose first step calls a prefixed tool; the suite words the failure of that step. */
const PREFIXED_FIRST_STEP = {
  why: PREFIXED.why,
  failure: new RegExp(
    `${UNKNOWN_NAME.source}|Expected InputRequiredResult with inputRequests and requestState|` +
      'Prerequisite failed: could not get initial InputRequiredResult',
  ),
}
const TRANSLATION_LIMITS = {
  http: new Map(),
  stdio: new Map([['input-required-result-basic-elicitation', KEYS_LOST]]),
  aggregator: new Map([
    ...[
      'completion-complete',
      ...['simple-text', 'image', 'audio', 'embedded-resource', 'mixed-content', 'error'].map(
        (name) => `tools-call-${name}`,
      ),
      'tools-call-with-progress',
      ...['simple', 'with-args', 'embedded-resource', 'with-image'].map((n) => `prompts-get-${n}`),
      ...[
        'basic-elicitation',
        'basic-sampling',
        'basic-list-roots',
        'request-state',
        'multiple-input-requests',
        'non-tool-request',
        'result-type',
      ].map((name) => `input-required-result-${name}`),
    ].map((name) => [name, PREFIXED]),
    ...['multi-round', 'tampered-state'].map((name) => [
      `input-required-result-${name}`,
      PREFIXED_FIRST_STEP,
    ]),
  ]),
}
/** Scenarios that cannot pass through a public hostname, with the reason shown in the table. */
const NOT_APPLICABLE_THROUGH_TUNNEL = new Map([
  ['dns-rebinding-protection', 'n/a through a public hostname'],
])
const TIMEOUT_MS = Number(process.env.CONFORMANCE_TIMEOUT_MS || 600_000)
const SUITE_NAME = process.env.CONFORMANCE_SUITE || ''

const run = promisify(execFile)
const started = Date.now()
const outDir = process.env.CONFORMANCE_OUT || mkdtempSync(join(tmpdir(), 'burrow-conformance-'))
mkdirSync(outDir, { recursive: true })
const dataDir = mkdtempSync(join(tmpdir(), 'burrow-conformance-data-'))
/** Set once the run is stopping: no new children, no more output but the reason. */
let finishing = false

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`
/** Print a line, unless the run is stopping (its own message is the last word then). */
const log = (line) => void (finishing || process.stdout.write(`${line}\n`))

// ---- Child processes: each in its own process group, output to a log file ----

/** @type {Set<{ name: string, proc: import('node:child_process').ChildProcess, output: string, exited: Promise<void> }>} */
const children = new Set()

/** Start `command args`; stdout and stderr go to `<outDir>/<name>.log` and are kept in memory. */
function start(name, command, args, env) {
  if (finishing) throw new Error(`not starting ${name}: the run is stopping`)
  const file = createWriteStream(join(outDir, `${name}.log`))
  const proc = spawn(command, args, {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so npx's grandchildren stop with it
  })
  const child = {
    name,
    proc,
    output: '',
    exited: new Promise((resolve) => proc.once('close', () => resolve())),
  }
  for (const stream of [proc.stdout, proc.stderr]) {
    stream.setEncoding('utf8')
    stream.on('data', (chunk) => {
      child.output += chunk
      file.write(chunk)
    })
  }
  proc.once('close', () => {
    file.end()
    children.delete(child)
  })
  children.add(child)
  return child
}

/** Resolve with the first match of `pattern` in the child's output; reject on exit or after `ms`. */
function waitFor(child, pattern, ms) {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = child.output.match(pattern)
      if (match) {
        done()
        resolve(match)
      }
    }
    const fail = (why) => {
      done()
      const tail = child.output.split('\n').slice(-20).join('\n')
      reject(new Error(`${child.name} ${why} before printing ${pattern}; last output:\n${tail}`))
    }
    const timer = setTimeout(() => fail(`took over ${seconds(ms)}`), ms)
    const onClose = () => {
      check()
      fail(`exited (${child.proc.exitCode ?? child.proc.signalCode})`)
    }
    const done = () => {
      clearTimeout(timer)
      child.proc.stdout.off('data', check)
      child.proc.stderr.off('data', check)
      child.proc.off('close', onClose)
    }
    child.proc.stdout.on('data', check)
    child.proc.stderr.on('data', check)
    child.proc.once('close', onClose)
    check()
  })
}

/** Signal a child's whole process group (ignoring ones already gone). */
function signal(child, sig) {
  try {
    process.kill(-child.proc.pid, sig)
  } catch {
    try {
      child.proc.kill(sig)
    } catch {
      // already gone
    }
  }
}

/** Stop every child: SIGTERM, then SIGKILL for any still running after 5 s. */
async function stopAll() {
  const running = [...children]
  for (const child of running) signal(child, 'SIGTERM')
  const timer = setTimeout(() => {
    for (const child of children) signal(child, 'SIGKILL')
  }, 5000)
  await Promise.all(running.map((child) => child.exited))
  clearTimeout(timer)
}

async function finish(code, message) {
  if (finishing) return
  finishing = true
  if (message) process.stderr.write(`\nconformance: ${message}\n`)
  await stopAll()
  rmSync(dataDir, { recursive: true, force: true })
  process.exit(code)
}

const overall = setTimeout(
  () => void finish(1, `the whole run took over ${seconds(TIMEOUT_MS)}; stopped`),
  TIMEOUT_MS,
)
overall.unref()
process.on('SIGINT', () => void finish(130, 'interrupted'))
process.on('SIGTERM', () => void finish(143, 'terminated'))

// ---- Setup ----

/** A TCP port on 127.0.0.1 that was free a moment ago. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

async function operator(env, args) {
  const { stdout } = await run(process.execPath, [BURROWD, ...args, '--json'], {
    cwd: ROOT,
    env,
    timeout: 30_000,
  })
  return JSON.parse(stdout)
}

/** Start the fixture, burrowd and `burrow up`; returns the two URLs to test. */
async function setUp() {
  for (const file of [BURROWD, BURROW]) {
    if (!existsSync(file)) throw new Error(`${file} is missing; run "npm run build" first`)
  }
  const fixture = start('fixture', process.execPath, ['--import', 'tsx', FIXTURE], {
    ...process.env,
    PORT: '0',
  })
  const [, fixturePort] = await waitFor(fixture, /listening on (\d+)/, 30_000)
  const upstream = `http://127.0.0.1:${fixturePort}/mcp`
  log(`fixture:  ${upstream}`)

  const port = await freePort()
  // The suite checks protocol fidelity: it runs its scenarios at once, each in a new MCP session
  // it never ends, past any plan's session cap. So the session cap and the monthly quotas are
  // off here (BURROW_QUOTAS=off); their own tests cover them.
  const env = {
    ...process.env,
    BURROW_DATA_DIR: dataDir,
    BURROW_LISTEN: `127.0.0.1:${port}`,
    BURROW_QUOTAS: 'off',
  }
  await operator(env, [
    'account',
    'create',
    '--email',
    'c@example.com',
    '--slug',
    'conf',
    '--plan',
    'scale',
  ])
  const burrowd = start('burrowd', process.execPath, [BURROWD, 'serve'], env)
  await waitFor(burrowd, /burrowd listening/, 30_000)
  log(`burrowd:  ws://127.0.0.1:${port} (data in ${dataDir})`)

  const stdioServer = `node --import tsx "${FIXTURE}" --stdio`
  const upArgs = {
    http: ['--upstream', upstream],
    stdio: ['--stdio', stdioServer],
    aggregator: ['--stdio', `conf=${stdioServer}`, '--stdio', `more=${stdioServer}`],
  }
  const tunnels = {}
  for (const mode of MODES) {
    const tunnel = await operator(env, [
      'tunnel',
      'create',
      '--account',
      'conf',
      '--name',
      `conformance-${mode}`,
      '--access',
      'public',
    ])
    const client = start(
      `burrow-${mode}`,
      process.execPath,
      [BURROW, '--broker', `ws://127.0.0.1:${port}`, 'up', ...upArgs[mode]],
      {
        ...process.env,
        BURROW_API_KEY: tunnel.key,
        BURROW_NO_UPDATE_CHECK: '1',
        BURROW_NO_TELEMETRY: '1',
        BURROW_DRAIN_GRACE_SECS: '1',
      },
    )
    await waitFor(client, /Tunnel online/, 60_000)
    tunnels[mode] = `${tunnel.public_url}/mcp`
    log(`tunnel (${mode}): ${tunnels[mode]}`)
  }
  return { direct: `http://localhost:${fixturePort}/mcp`, tunnels }
}

// ---- Running and reading the suite ----

/** Run the server suite against `url`; results go to `<outDir>/<label>/`. */
async function runSuite(label, url, extraEnv = {}) {
  const resultsDir = join(outDir, label)
  rmSync(resultsDir, { recursive: true, force: true })
  mkdirSync(resultsDir, { recursive: true })
  const t0 = Date.now()
  log(`\n== ${label}: conformance server --url ${url}`)
  const suite = start(
    `suite-${label}`,
    'npx',
    [
      ...SUITE,
      ...['conformance', 'server', '--url', url, '-o', resultsDir],
      ...(MODERN ? ['--requirements', SPEC] : SUITE_NAME ? ['--suite', SUITE_NAME] : []),
    ],
    { ...process.env, ...extraEnv },
  )
  let seen = 0
  const progress = (chunk) => {
    for (const m of chunk.matchAll(/=== Running scenario: (\S+) ===/g)) {
      seen++
      if (!finishing) process.stdout.write(`${seen === 1 ? '  ' : ', '}${m[1]}`)
    }
  }
  suite.proc.stdout.on('data', progress)
  await suite.exited // the overall timeout stops it when the run takes too long
  process.stdout.write('\n')
  const exit = suite.proc.exitCode ?? suite.proc.signalCode
  const result = parseRun(suite.output, resultsDir)
  log(
    `${label}: ${result.total ?? 'no total line'}; exit ${exit}; ${seconds(Date.now() - t0)}` +
      ` (log: ${join(outDir, `suite-${label}.log`)})`,
  )
  if (result.scenarios.size === 0) {
    const tail = suite.output.split('\n').slice(-30).join('\n')
    throw new Error(`the ${label} run reported no scenarios; last output:\n${tail}`)
  }
  return result
}

/**
 * Scenario results of one run: the summary lines (`✓ name: N passed, M failed`) after
 * `=== SUMMARY ===`, with each `checks.json` in the results dir filling in scenarios the summary
 * lacks and giving the failure messages.
 */
function parseRun(output, resultsDir) {
  /** @type {Map<string, { pass: boolean, passed: number, failed: number, errors: string[] }>} */
  const scenarios = new Map()
  const summary = output.slice(output.lastIndexOf('=== SUMMARY ==='))
  for (const m of summary.matchAll(/^([✓✗]) (\S+): (\d+) passed, (\d+) failed/gm)) {
    const [, mark, name, passed, failed] = m
    scenarios.set(name, {
      pass: mark === '✓',
      passed: Number(passed),
      failed: Number(failed),
      errors: [],
    })
  }
  const total = summary.match(/Total: \d+ passed, \d+ failed/)?.[0]
  for (const dir of readdirSync(resultsDir)) {
    const file = join(resultsDir, dir, 'checks.json')
    if (!existsSync(file)) continue
    const name = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '')
    let checks
    try {
      checks = JSON.parse(readFileSync(file, 'utf8'))
    } catch {
      continue
    }
    const failures = checks.filter((c) => c.status === 'FAILURE')
    const entry = scenarios.get(name) ?? {
      pass: failures.length === 0 && checks.some((c) => c.status === 'SUCCESS'),
      passed: checks.filter((c) => c.status === 'SUCCESS').length,
      failed: failures.length,
      errors: [],
    }
    entry.errors = failures.map((c) => `${c.name}: ${c.errorMessage ?? c.description}`)
    scenarios.set(name, entry)
  }
  return { scenarios, total }
}

function cell(entry) {
  if (!entry) return 'missing'
  return entry.pass ? 'pass' : `FAIL (${entry.failed} failed)`
}

// ---- Main ----

async function main() {
  const urls = await setUp()
  const direct = await runSuite('direct', urls.direct)
  const preload = `--import ${pathToFileURL(DNS_PRELOAD).href}`
  const through = {}
  for (const mode of MODES) {
    through[mode] = await runSuite(`tunnel-${mode}`, urls.tunnels[mode], {
      NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' '),
    })
  }

  const names = [
    ...new Set([direct, ...Object.values(through)].flatMap((r) => [...r.scenarios.keys()])),
  ]
  const width = Math.max(...names.map((n) => n.length), 'scenario'.length)
  const columns = ['direct', ...MODES.map((mode) => `tunnel ${mode}`)]
  log(`\nMCP ${SPEC} (${SUITE_PACKAGE})`)
  log(`${'scenario'.padEnd(width)}  ${columns.map((c) => c.padEnd(20)).join('  ')}`)
  log(`${'-'.repeat(width)}  ${columns.map(() => '-'.repeat(20)).join('  ')}`)
  const passes = { direct: 0 }
  const regressions = []
  const excused = []
  for (const name of names) {
    const d = direct.scenarios.get(name)
    if (d?.pass) passes.direct++
    const cells = [cell(d)]
    for (const mode of MODES) {
      const t = through[mode].scenarios.get(name)
      const na = NOT_APPLICABLE_THROUGH_TUNNEL.get(name)
      const limit = TRANSLATION_LIMITS[mode].get(name)
      if (t?.pass) passes[mode] = (passes[mode] ?? 0) + 1
      const errors = t?.errors ?? []
      const byConstruction =
        limit !== undefined &&
        !t?.pass &&
        errors.length > 0 &&
        errors.every((e) => limit.failure.test(e))
      cells.push(na ?? (byConstruction ? `${cell(t)} (limit)` : cell(t)))
      if (na || !d?.pass || t?.pass) continue
      if (byConstruction) excused.push(`${mode}: ${name}: ${limit.why}`)
      else regressions.push({ mode, name, errors: errors.length > 0 ? errors : ['no result'] })
    }
    log(`${name.padEnd(width)}  ${cells.map((c) => c.padEnd(20)).join('  ')}`)
  }
  log('')
  for (const name of names) {
    const d = direct.scenarios.get(name)
    if (d && !d.pass)
      log(`fails directly too (not a tunnel problem): ${name}: ${d.errors.join('; ')}`)
  }
  for (const line of excused) log(`cannot pass through this mode by construction: ${line}`)
  for (const { mode, name, errors } of regressions) {
    log(`fails only through the tunnel (${mode}): ${name}`)
    for (const error of errors) log(`    ${error}`)
  }
  log(`results and logs: ${outDir}; ${seconds(Date.now() - started)} in all`)
  const summary = MODES.map((mode) => `${passes[mode] ?? 0} through the ${mode} tunnel`)
  log(`conformance ${SPEC}: ${passes.direct} scenarios pass directly, ${summary.join(', ')}`)
  if (passes.direct === 0) return finish(1, 'no scenario passes directly; the fixture is broken')
  if (regressions.length > 0) {
    return finish(1, `${regressions.length} scenario(s) pass directly but not through a tunnel`)
  }
  return finish(0)
}

main().catch((err) => void finish(1, err instanceof Error ? err.message : String(err)))
