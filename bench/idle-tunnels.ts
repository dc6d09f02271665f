// Section 4: broker memory per idle tunnel. A fresh burrowd gets a small warm-up batch of
// connected tunnels (so one-time costs — code paths, the first sockets — are already paid); then
// N more lightweight clients (bench/fixtures/idle-clients.ts) connect and idle. burrowd's RSS
// (/proc/<pid>/status VmRSS) after − before, divided by N, is the memory of one idle tunnel.
// burrowd runs with the inspector on so the run can also read V8's heap spaces and force a full
// GC: the second row leaves out the growth of V8's young generation (a bounded per-process buffer
// that a burst of connections grows), the third is the difference after collection, i.e. what a
// tunnel really retains.
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
      logLevel: 'warn',
      nodeArgs: ['--inspect=127.0.0.1:0'],
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
    const idleSeconds = Math.max(3, config.seconds)
    progress(
      `  ${n} tunnels welcomed in ${connectSeconds.toFixed(1)} s; idling ${idleSeconds} s … `,
    )
    await sleep(idleSeconds * 1000)
    const after = await steadyRss(burrowd.pid)
    const afterUsage = await inspector.memoryUsage()
    const afterGc = await collected(inspector, burrowd.pid)
    const dropped = (warm.stderr + main.stderr).match(/dropped/g)?.length ?? 0
    const clientRss = rssOf(main.proc.pid!) ?? 0
    const perTunnel = (bytes: number) => bytes / n / 1024
    const asIs = perTunnel(after - before.rss)
    const young = perTunnel(afterUsage.youngGeneration - before.youngGeneration)
    const retained = perTunnel(afterGc.rss - before.rss)
    progress(
      `${asIs.toFixed(1)} KB per tunnel (${(asIs - young).toFixed(1)} KB without the young ` +
        `generation's growth, ${retained.toFixed(1)} KB after a full GC)\n`,
    )

    const heap = perTunnel(afterGc.heapUsed - before.heapUsed)
    const external = perTunnel(afterGc.external - before.external)
    return [
      {
        id: 'idle-tunnel',
        name,
        concurrency: n,
        unit: 'KB/tunnel',
        value: asIs,
        errors: dropped,
        note:
          `burrowd RSS ${mb(before.rss)} MB with ${WARM_UP_TUNNELS} tunnels → ${mb(after)} MB with ` +
          `${WARM_UP_TUNNELS + n}; ${n} connected in ${connectSeconds.toFixed(1)} s, then idle ` +
          `${idleSeconds} s (the client process held ${mb(clientRss)} MB for them)`,
      },
      {
        id: 'idle-tunnel-net',
        name: `${name} less young generation`,
        concurrency: n,
        unit: 'KB/tunnel',
        value: asIs - young,
        note:
          `V8's young generation grew by ${mb(afterUsage.youngGeneration - before.youngGeneration)} MB ` +
          `(${young.toFixed(1)} KB per tunnel) while the tunnels connected, to ` +
          `${mb(afterUsage.youngGeneration)} MB: a per-process buffer V8 sizes to the burst of ` +
          `surviving objects (at most twice --max-semi-space-size) and shrinks only in a full GC`,
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
