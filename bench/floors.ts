// Interleaved comparison of the floors alone, in front of the small-call fixture: two TCP relays
// (bench/fixtures/tcp-relay.mjs), two node:http + undici proxies (bench/fixtures/http-proxy.mjs),
// two nginx proxies (bench/nginx-proxies.ts) and two lean proxies that use Node's HTTP parser on
// raw sockets without node:http or undici (bench/fixtures/lean-http-proxy.mjs). It separates what
// reading HTTP costs from what Node's HTTP machinery costs (docs/benchmarks.md, "What native HTTP
// reaches"). Rounds alternate the floors, so a VM whose speed drifts affects them alike.
//   node --no-memory-reducer --import tsx bench/floors.ts [<concurrency> [<rounds> [<seconds>]]]
import { cpuSeconds } from './cpu.js'
import {
  FIXTURES,
  startFixture,
  startHttpProxyPair,
  startLeanProxyPair,
  startRelayPair,
  type HopPair,
} from './launch.js'
import { runLoad } from './load.js'
import { warnWithoutLoadGeneratorFlag } from './load-generator-flags.js'
import { startNginxPair } from './nginx-proxies.js'
import { ProcessGroup } from './processes.js'
import { cellArgs } from './script-args.js'
import { CALL_HEADERS } from './sections/small-calls.js'

const [concurrency, rounds, seconds] = cellArgs('bench/floors.ts', [50, 3, 4])

const FLOORS: readonly (readonly [string, typeof startRelayPair])[] = [
  ['two TCP relays', startRelayPair],
  ['two node:http + undici proxies', startHttpProxyPair],
  ['two nginx proxies', startNginxPair],
  ['two lean JS proxies', startLeanProxyPair],
]

warnWithoutLoadGeneratorFlag()
const group = new ProcessGroup()
try {
  const server = await startFixture(group, FIXTURES.rpcHttp)
  const pairs: { name: string; pair: HopPair }[] = []
  for (const [name, start] of FLOORS) {
    try {
      pairs.push({ name, pair: await start(group, server.port) })
    } catch (err) {
      process.stdout.write(`${name}: skipped: ${(err as Error).message}\n`)
    }
  }
  const target = (pair: HopPair) => ({
    url: `http://127.0.0.1:${pair.port}/mcp`,
    headers: CALL_HEADERS,
  })
  // Warm every pair (V8 compiles the proxies' code during their first thousands of calls).
  for (const { pair } of pairs) {
    await runLoad(target(pair), { concurrency: 50, warmupMs: 0, durationMs: 3000 })
  }
  // The relays' calls/s in each round, which every floor of that round is read against.
  const relays = new Map<number, number>()
  for (let round = 1; round <= rounds; round++) {
    for (const { name, pair } of pairs) {
      const cpu = () => pair.pids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0)
      const before = cpu()
      const began = performance.now()
      const result = await runLoad(target(pair), {
        concurrency,
        warmupMs: 500,
        durationMs: seconds * 1000,
      })
      // CPU over the whole cell (warm-up included) per call made at the cell's rate.
      const elapsed = (performance.now() - began) / 1000
      const perCall = ((cpu() - before) * 1e6) / (result.callsPerSecond * elapsed)
      if (name === FLOORS[0]![0]) {
        relays.set(round, result.callsPerSecond)
      }
      const base = relays.get(round)
      const share = base ? ` (${(result.callsPerSecond / base).toFixed(2)}× the relays)` : ''
      const rate = Math.round(result.callsPerSecond).toString().padStart(6)
      process.stdout.write(
        `round ${round}, c=${concurrency}: ${name.padEnd(32)} ${rate} calls/s${share}, ` +
          `p50 ${result.p50Ms.toFixed(3)} ms, ` +
          `${perCall.toFixed(1)} µs of the two hops' CPU per call, ${result.errors} errors\n`,
      )
    }
  }
  for (const { pair } of pairs) {
    for (const child of pair.children) await group.stop(child)
    pair.cleanup?.()
  }
} finally {
  await group.stopAll()
}
