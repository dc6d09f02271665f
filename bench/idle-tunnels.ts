// Section 4: broker memory per idle tunnel. A fresh burrowd gets a small warm-up batch of
// connected tunnels (so one-time costs — code paths, the first sockets — are already paid); then
// N more lightweight clients (bench/fixtures/idle-clients.ts) connect and idle. burrowd's RSS
// (/proc/<pid>/status VmRSS) after − before, divided by N, is the memory of one idle tunnel.
// It is read twice: a few seconds after the tunnels connected, and once the broker has idled
// long enough for V8 to give back the young generation the burst of handshakes grew (it does so
// at its first minor collection while the process allocates little, which an idle broker
// reaches on its heartbeats' allocations within about a minute), or after `BENCH_IDLE_SECONDS`.
// burrowd runs with the inspector on so the run can also read V8's heap spaces and force a full
// GC: the last row is the difference after collection, i.e. what a tunnel really retains.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Child } from '../test/helpers/child.js'
import { rssOf } from '../test/helpers/rss.js'
import { ROOT } from '../test/helpers/stack.js'
import { progress } from './cell.js'
import type { BenchConfig } from './config.js'
import { Inspector, type MemoryUsage } from './inspector.js'
import { createTunnels, FIXTURES, startBurrowd, tempDataDir } from './launch.js'
import type { ProcessGroup } from './processes.js'
import { unavailableRow, type Row } from './report.js'

/** burrowd's line when it gave memory back after a quiet spell (runtime/quiet-memory-release.ts). */
const RELEASE_LOG = /memory: quiet for \d+ s, gave back [^\n]*/

/** Seconds of readings after burrowd's release: two heartbeats and a bit. */
const HOLD_SECONDS = 33

/** Tunnels connected before the "before" reading. */
const WARM_UP_TUNNELS = 20

/** Median of a few RSS readings of `pid` over about a second, in bytes. */
async function steadyRss(pid: number): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < 5; i++) {
    const rss = rssOf(pid)
    if (rss === null) throw new Error(`cannot read /proc/${pid}/status (not Linux?)`)
    samples.push(rss)
    await sleep(250)
  }
  samples.sort((a, b) => a - b)
  return samples[2]!
}

/** Force a full GC, let the allocator settle, and read RSS and heap. */
async function collected(inspector: Inspector, pid: number): Promise<MemoryUsage> {
  await inspector.collectGarbage()
  await sleep(500)
  const usage = await inspector.memoryUsage()
  return { ...usage, rss: await steadyRss(pid) }
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
const perTunnelText = (bytes: number, n: number) => `${(bytes / n / 1024).toFixed(1)} KB per tunnel`

/** Measure the idle-tunnel rows. */
export async function idleTunnels(group: ProcessGroup, config: BenchConfig): Promise<Row[]> {
  const name = 'idle tunnel · burrowd RSS'
  const n = config.tunnels
  progress(`memory per idle tunnel (${n} tunnels)\n`)
  const data = tempDataDir()
  const started: Child[] = []
  let inspector: Inspector | undefined
  try {
    const keys = await createTunnels(data.path, Array<null>(WARM_UP_TUNNELS + n).fill(null))
    const warmFile = join(data.path, 'warm-keys.txt')
    const mainFile = join(data.path, 'keys.txt')
    writeFileSync(warmFile, keys.slice(0, WARM_UP_TUNNELS).join('\n'))
    writeFileSync(mainFile, keys.slice(WARM_UP_TUNNELS).join('\n'))

    const burrowd = await startBurrowd(group, data.path, {
      // info: the release's line (it also logs each tunnel connecting).
      logLevel: 'info',
      nodeArgs: ['--inspect=127.0.0.1:0'],
      // Not whatever the shell has: the wait and the hold are sized to these.
      env: { BURROW_MEMORY_RELEASE_SECS: '60', BURROW_HEARTBEAT_SECS: '15' },
    })
    started.push(burrowd.child)
    const debuggerUrl = await burrowd.child.waitFor(/Debugger listening on (ws:\/\/\S+)/)
    inspector = await Inspector.connect(debuggerUrl[1]!)
    const clients = (file: string, label: string) => {
      const args = ['--import', 'tsx', FIXTURES.idleClients, burrowd.broker, file]
      const child = group.start(label, process.execPath, args, { cwd: ROOT })
      started.push(child)
      return child
    }
    const warm = clients(warmFile, 'idle clients (warm-up)')
    await warm.waitFor(/welcomed \d+/, 30_000)
    await sleep(2000)
    const before = await collected(inspector, burrowd.pid)

    const t0 = performance.now()
    const main = clients(mainFile, 'idle clients')
    await main.waitFor(/welcomed \d+/, 120_000)
    const connectSeconds = (performance.now() - t0) / 1000
    const settleSeconds = Math.max(3, config.seconds)
    progress(`  ${n} tunnels welcomed in ${connectSeconds.toFixed(1)} s; `)
    await sleep(settleSeconds * 1000)
    const connected = await steadyRss(burrowd.pid)
    const connectedUsage = await inspector.memoryUsage()
    const youngGrowth = connectedUsage.youngGeneration - before.youngGeneration
    progress(`${perTunnelText(connected - before.rss, n)} after ${settleSeconds} s; idling … `)

    // Idle until burrowd logs that it gave memory back after a quiet spell
    // (BURROW_MEMORY_RELEASE_SECS), or the time is up; note when RSS fell by half the young
    // generation's growth (V8 shrinking it itself). Only /proc is read meanwhile: the inspector
    // would allocate, and its calls would make the broker look busy.
    const idleStart = performance.now()
    const logFrom = burrowd.child.stderr.length
    const idleFor = () => (performance.now() - idleStart) / 1000 + settleSeconds
    const grew = youngGrowth > 1024 * 1024
    let shrunkAfter: number | null = null
    let releasedAfter: number | null = null
    while (releasedAfter === null && idleFor() < config.idleSeconds) {
      await sleep(1000)
      const rss = rssOf(burrowd.pid)
      if (grew && shrunkAfter === null && rss !== null && rss <= connected - youngGrowth / 2) {
        shrunkAfter = idleFor()
      }
      if (RELEASE_LOG.test(burrowd.child.stderr.slice(logFrom))) releasedAfter = idleFor()
    }
    // Then stay idle for two more heartbeats and take the highest reading: the figure is what
    // the idle broker holds, not its low point right after the collection.
    let after = 0
    if (releasedAfter !== null) {
      for (let i = 0; i < HOLD_SECONDS; i++) {
        await sleep(1000)
        after = Math.max(after, rssOf(burrowd.pid) ?? 0)
      }
    } else {
      after = await steadyRss(burrowd.pid)
    }
    const idleSeconds = (performance.now() - idleStart) / 1000 + settleSeconds
    const afterUsage = await inspector.memoryUsage()
    const afterGc = await collected(inspector, burrowd.pid)
    const dropped = (warm.stderr + main.stderr).match(/dropped/g)?.length ?? 0
    const clientRss = rssOf(main.proc.pid!) ?? 0
    const perTunnel = (bytes: number) => bytes / n / 1024
    const asIs = perTunnel(after - before.rss)
    const retained = perTunnel(afterGc.rss - before.rss)
    progress(
      `${asIs.toFixed(1)} KB per tunnel after ${idleSeconds.toFixed(0)} s idle ` +
        `(${retained.toFixed(1)} KB after a full GC)\n`,
    )

    const heap = perTunnel(afterGc.heapUsed - before.heapUsed)
    const external = perTunnel(afterGc.external - before.external)
    const released = [
      releasedAfter === null
        ? `burrowd had not released memory ${idleSeconds.toFixed(0)} s after the tunnels connected`
        : `burrowd released memory after a quiet spell ${releasedAfter.toFixed(0)} s after the ` +
          `tunnels connected (${burrowd.child.stderr.slice(logFrom).match(RELEASE_LOG)![0]}); ` +
          `the reading is the highest of the ${HOLD_SECONDS} s after it`,
      !grew
        ? 'the young generation hardly grew'
        : shrunkAfter === null
          ? 'V8 had not shrunk the young generation itself before'
          : `V8 had shrunk the young generation itself after ${shrunkAfter.toFixed(0)} s`,
    ].join('; ')
    return [
      {
        id: 'idle-tunnel-connected',
        name: `${name}, ${settleSeconds} s after connecting`,
        concurrency: n,
        unit: 'KB/tunnel',
        value: perTunnel(connected - before.rss),
        errors: dropped,
        note:
          `burrowd RSS ${mb(before.rss)} MB with ${WARM_UP_TUNNELS} tunnels → ${mb(connected)} MB ` +
          `with ${WARM_UP_TUNNELS + n}; ${n} connected in ${connectSeconds.toFixed(1)} s (the client ` +
          `process held ${mb(clientRss)} MB for them). V8's young generation had grown by ` +
          `${mb(youngGrowth)} MB (${perTunnel(youngGrowth).toFixed(1)} KB per tunnel) to ` +
          `${mb(connectedUsage.youngGeneration)} MB: a per-process buffer V8 sizes to a burst of ` +
          `surviving objects (at most twice --max-semi-space-size)`,
      },
      {
        id: 'idle-tunnel',
        name: `${name}, idle`,
        concurrency: n,
        unit: 'KB/tunnel',
        value: asIs,
        errors: dropped,
        note:
          `RSS ${mb(after)} MB after ${idleSeconds.toFixed(0)} s idle (the broker pinging every ` +
          `tunnel meanwhile); ${released}; young generation ${mb(afterUsage.youngGeneration)} MB`,
      },
      {
        id: 'idle-tunnel-gc',
        name: `${name} after full GC`,
        concurrency: n,
        unit: 'KB/tunnel',
        value: retained,
        note:
          `after forced GC: RSS ${mb(afterGc.rss)} MB; per tunnel ${heap.toFixed(1)} KB of JS ` +
          `heap + ${external.toFixed(1)} KB external (buffers); the rest is native (sockets, allocator)`,
      },
    ]
  } catch (err) {
    progress(`failed: ${(err as Error).message}\n`)
    return [unavailableRow(name, n, 'KB/tunnel', (err as Error).message)]
  } finally {
    inspector?.close()
    for (const child of started.reverse()) await group.stop(child)
    data.remove()
  }
}
