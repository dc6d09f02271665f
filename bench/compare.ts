// Interleaved A/B of several builds of Burrow: for each round and each checkout given, start that
// checkout's burrowd and `burrow up --upstream` in front of the small-call (or bulk) fixture,
// measure one cell with this repository's load generator, and print throughput, CPU per call (or
// per MB) and system calls per call of both processes. `sdk` puts the MCP SDK's reference server
// (server-everything over Streamable HTTP, SSE answers) behind the tunnel instead, in one session.
// Rounds alternate the builds, so a VM that speeds up or slows down during the run affects them
// alike. docs/benchmarks.md shows its output.
//   node --no-memory-reducer --import tsx bench/compare.ts small|bulk|sdk <rounds> <seconds> <checkout> [<checkout> …]
// Each checkout must be built (`npx tsc -b`) and resolve `@burrow/*` to its own packages (a
// `node_modules` linked whole to another checkout's loads that one's); its burrowd and burrow up
// run with that checkout's node flags (node-flags.ts, up/heap-respawn.ts), so flags can be compared
// too. COMPARE_C sets the concurrency (default 50, bulk 1); COMPARE_CPU_PROF=<dir> makes burrowd
// and burrow write V8 CPU profiles there; COMPARE_IDLE=<s> leaves the tunnel idle that long before
// the cell (as the full run's Burrow cells are), after COMPARE_PRIME=<s> of transfers (bulk) and
// COMPARE_PRIME_CALLS=<s> of small calls at c=50 (bulk) if given, and the line says when burrowd
// gave memory back meanwhile; COMPARE_TRACE_GC=1 also counts the mark-compact collections of both
// processes in the cell; COMPARE_CLIENT_FLAGS='<flags>' starts every `burrow up` with these node
// flags. Each cell warms up for 1.5 s and, for calls, at least COMPARE_WARMUP_CALLS calls (default
// 10000, as `npm run bench`; at most 20 s of them).
// COMPARE_POLICY=realistic gives the tunnel the policy section's realistic governance policy.
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../test/helpers/free-port.js'
import { cpuSeconds } from './cpu.js'
import {
  createTunnels,
  FIXTURES,
  startEverythingHttp,
  startFixture,
  tempDataDir,
} from './launch.js'
import { runLoad, type CallTarget } from './load.js'
import { warnWithoutLoadGeneratorFlag } from './load-generator-flags.js'
import { openMcpSession } from './mcp-session.js'
import { REALISTIC_POLICY } from './sections/policy-calls.js'
import { echoBody } from './sections/sdk-calls.js'
import { ProcessGroup } from './processes.js'
import { runTransfer } from './transfer.js'

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
}

/** The tunnel's governance policy (`COMPARE_POLICY=realistic`), or none. */
const POLICY = (() => {
  const name = process.env.COMPARE_POLICY?.trim() ?? ''
  if (name === '') return undefined
  if (name === 'realistic') return REALISTIC_POLICY
  throw new Error(`COMPARE_POLICY may be "realistic", not "${name}"`)
})()

/** Node flags for CPU profiles of burrowd and burrow (`COMPARE_CPU_PROF`), or none. */
const PROFILE_DIR = process.env.COMPARE_CPU_PROF?.trim()
const PROFILE_ARGS = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${resolve(PROFILE_DIR)}`] : []

/** Whether to count mark-compacts (`COMPARE_TRACE_GC=1`): both processes then trace their GCs. */
const TRACE_GC = process.env.COMPARE_TRACE_GC === '1'
const NODE_ARGS = [...PROFILE_ARGS, ...(TRACE_GC ? ['--trace-gc'] : [])]

/** Calls every call cell's warm-up makes at least (`COMPARE_WARMUP_CALLS`, default 10000). */
const WARMUP_CALLS = Number(process.env.COMPARE_WARMUP_CALLS?.trim() || 10_000)
if (!Number.isInteger(WARMUP_CALLS) || WARMUP_CALLS < 0) {
  throw new Error('COMPARE_WARMUP_CALLS must be a whole number, 0 or more')
}

/** Node flags for every `burrow up` (`COMPARE_CLIENT_FLAGS`, space-separated). */
const CLIENT_FLAGS = (process.env.COMPARE_CLIENT_FLAGS ?? '').split(' ').filter((f) => f !== '')

/** The Node flags a checkout's burrowd runs with (its own `BURROWD_NODE_FLAGS`, if it has them). */
async function burrowdNodeFlags(checkout: string): Promise<readonly string[]> {
  const file = join(checkout, 'packages/server/dist/node-flags.js')
  if (!existsSync(file)) return []
  const flags = (await import(pathToFileURL(file).href)) as { BURROWD_NODE_FLAGS: string[] }
  return flags.BURROWD_NODE_FLAGS
}

/**
 * The Node flags a checkout's `burrow up` runs with (its own `UP_NODE_FLAGS`, if it has them),
 * given here so that `up` runs in the measured process rather than in a second one.
 */
async function upNodeFlags(checkout: string): Promise<readonly string[]> {
  const file = join(checkout, 'packages/cli/dist/up/heap-respawn.js')
  if (!existsSync(file)) return []
  const flags = (await import(pathToFileURL(file).href)) as { UP_NODE_FLAGS: string[] }
  return flags.UP_NODE_FLAGS
}

/** Mark-compact collections a `--trace-gc` process reported so far. */
const markCompacts = (child: { stdout: string }) => child.stdout.split('Mark-Compact').length - 1

/**
 * Seconds of transfers before the idle and the cell (`COMPARE_PRIME`, bulk only, default 0), so
 * that the heap a burst grew is there to be given back while the tunnel idles.
 */
const PRIME_SECONDS = Number(process.env.COMPARE_PRIME ?? 0)
if (!Number.isFinite(PRIME_SECONDS) || PRIME_SECONDS < 0) {
  throw new Error(`COMPARE_PRIME must be a number of seconds, not "${process.env.COMPARE_PRIME}"`)
}

/**
 * Seconds of small calls at c=50 through the tunnel before a bulk cell (`COMPARE_PRIME_CALLS`,
 * default 0), after the transfers of `COMPARE_PRIME`: a broker in service has answered many calls
 * before a large answer, and V8 picks its heap growing factor from what it measured then.
 */
const PRIME_CALLS_SECONDS = Number(process.env.COMPARE_PRIME_CALLS ?? 0)
if (!Number.isFinite(PRIME_CALLS_SECONDS) || PRIME_CALLS_SECONDS < 0) {
  throw new Error(
    `COMPARE_PRIME_CALLS must be a number of seconds, not "${process.env.COMPARE_PRIME_CALLS}"`,
  )
}

/** Seconds the stack idles before each cell (`COMPARE_IDLE`, default 0). */
const IDLE_SECONDS = Number(process.env.COMPARE_IDLE ?? 0)
if (!Number.isFinite(IDLE_SECONDS) || IDLE_SECONDS < 0) {
  throw new Error(`COMPARE_IDLE must be a number of seconds, not "${process.env.COMPARE_IDLE}"`)
}

type Mode = 'small' | 'bulk' | 'sdk'
const MODES: readonly string[] = ['small', 'bulk', 'sdk']

/** CPU seconds and read/write system calls of a process so far. */
interface Usage {
  cpu: number
  reads: number
  writes: number
}

function usageOf(pid: number): Usage {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8')
  return {
    cpu: cpuSeconds(pid) ?? NaN,
    reads: Number(/syscr: (\d+)/.exec(io)?.[1] ?? NaN),
    writes: Number(/syscw: (\d+)/.exec(io)?.[1] ?? NaN),
  }
}

const diff = (a: Usage, b: Usage): Usage => ({
  cpu: b.cpu - a.cpu,
  reads: b.reads - a.reads,
  writes: b.writes - a.writes,
})

/** One cell against one checkout; returns the line to print. */
async function cell(
  group: ProcessGroup,
  mode: Mode,
  checkout: string,
  concurrency: number,
  seconds: number,
): Promise<string> {
  const data = tempDataDir()
  try {
    const [key] = await createTunnels(data.path, ['compare'], POLICY, resolve(checkout))
    const port = await freePort()
    const burrowd = group.start(
      'burrowd',
      process.execPath,
      [
        ...(await burrowdNodeFlags(checkout)),
        ...NODE_ARGS,
        join(checkout, 'packages/server/dist/bin/burrowd.js'),
        'serve',
      ],
      {
        env: {
          ...process.env,
          BURROW_DATA_DIR: data.path,
          BURROW_LISTEN: `127.0.0.1:${port}`,
          BURROW_LOG: 'info',
        },
      },
    )
    await burrowd.waitFor(/burrowd listening/)
    const fixture =
      mode === 'sdk'
        ? await startEverythingHttp(group)
        : await startFixture(group, mode === 'bulk' ? FIXTURES.bulk : FIXTURES.rpcHttp)
    const upstream = 'url' in fixture ? fixture.url : `http://127.0.0.1:${fixture.port}/mcp`
    const client = group.start(
      'burrow up',
      process.execPath,
      [
        ...(await upNodeFlags(checkout)),
        ...NODE_ARGS,
        ...CLIENT_FLAGS,
        join(checkout, 'packages/cli/dist/bin/burrow.js'),
        '--broker',
        `ws://127.0.0.1:${port}`,
        'up',
        '--upstream',
        upstream,
      ],
      {
        env: {
          ...process.env,
          BURROW_API_KEY: key,
          BURROW_NO_UPDATE_CHECK: '1',
          BURROW_NO_TELEMETRY: '1',
        },
      },
    )
    const url = (await client.waitFor(/Tunnel online:\s+(\S+)/))[1]!
    if (PRIME_SECONDS > 0 && mode === 'bulk') {
      await runTransfer(url, 10 * 1024 * 1024, {
        concurrency,
        warmupMs: 0,
        durationMs: PRIME_SECONDS * 1000,
      })
    }
    if (PRIME_CALLS_SECONDS > 0 && mode === 'bulk') {
      // The bulk fixture answers any other method with an empty result.
      await runLoad(
        { url, headers: HEADERS },
        { concurrency: 50, warmupMs: 0, durationMs: PRIME_CALLS_SECONDS * 1000 },
      )
    }
    await sleep(IDLE_SECONDS * 1000)
    const pids = [burrowd.proc.pid!, client.proc.pid!, fixture.pid]
    let before: Usage[] = []
    let used: Usage[] = []
    let wall = 0
    let started = 0
    let compacts = [0, 0]
    const meter = {
      start() {
        before = pids.map(usageOf)
        started = performance.now()
        compacts = [markCompacts(burrowd), markCompacts(client)]
      },
      stop() {
        wall = (performance.now() - started) / 1000
        used = pids.map((pid, i) => diff(before[i]!, usageOf(pid)))
        compacts = [markCompacts(burrowd) - compacts[0]!, markCompacts(client) - compacts[1]!]
      },
    }
    const opts = {
      concurrency,
      warmupMs: 1500,
      warmupCalls: WARMUP_CALLS,
      durationMs: seconds * 1000,
      meter,
    }
    let line: string
    if (mode === 'bulk') {
      const r = await runTransfer(url, 10 * 1024 * 1024, opts)
      const mb = r.megabytesPerSecond * wall
      const per = (u: Usage) =>
        `${((u.cpu * 1000) / mb).toFixed(2)} ms/MB, ${(u.writes / mb).toFixed(1)} writes/MB`
      line = `${r.megabytesPerSecond.toFixed(0)} MB/s; burrowd ${per(used[0]!)}; burrow ${per(used[1]!)}`
    } else {
      const target: CallTarget =
        mode === 'sdk'
          ? { ...(await openMcpSession(url)), body: echoBody }
          : { url, headers: HEADERS }
      const r = await runLoad(target, opts)
      const per = (u: Usage) =>
        `${((u.cpu * 1e6) / r.calls).toFixed(0)} µs/call, ${(u.writes / r.calls).toFixed(2)} writes/call`
      line =
        `${Math.round(r.callsPerSecond)} calls/s p50 ${r.p50Ms.toFixed(3)} ms; burrowd ${per(used[0]!)}; ` +
        `burrow ${per(used[1]!)}; server ${((used[2]!.cpu * 1e6) / r.calls).toFixed(0)} µs/call`
    }
    if (TRACE_GC) line += `; mark-compacts: burrowd ${compacts[0]}, burrow ${compacts[1]}`
    const released = /memory: quiet for \d+ s, gave back ([\d.]+ MB)/.exec(burrowd.stderr)
    if (released) line += `; burrowd gave back ${released[1]} while idle`
    for (const child of [client, fixture.child, burrowd]) await group.stop(child)
    return line
  } finally {
    data.remove()
  }
}

async function main(): Promise<void> {
  warnWithoutLoadGeneratorFlag()
  const [mode, rounds, seconds, ...checkouts] = process.argv.slice(2)
  if (
    mode === undefined ||
    !MODES.includes(mode) ||
    !Number(rounds) ||
    !Number(seconds) ||
    !checkouts[0]
  ) {
    throw new Error(
      'usage: node --no-memory-reducer --import tsx bench/compare.ts small|bulk|sdk <rounds> <seconds> <checkout>…',
    )
  }
  const concurrency = Number(process.env.COMPARE_C ?? (mode === 'bulk' ? 1 : 50))
  const group = new ProcessGroup()
  try {
    for (let round = 0; round < Number(rounds); round++) {
      for (const checkout of checkouts) {
        const line = await cell(
          group,
          mode as Mode,
          resolve(checkout),
          concurrency,
          Number(seconds),
        )
        process.stdout.write(`${checkout}  round ${round + 1}: ${line}\n`)
      }
    }
  } finally {
    await group.stopAll()
  }
}

main().catch((err: Error) => {
  process.stderr.write(`compare failed: ${err.message}\n`)
  process.exitCode = 1
})
