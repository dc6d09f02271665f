// What every peer tunnel offers the benchmark: another project's tunnel, its server and its client
// both on 127.0.0.1, put in front of the same origin server as Burrow's rows. Each peer first
// finds (or installs) what it needs once per run, then starts and stops per section.
import { setTimeout as sleep } from 'node:timers/promises'
import type { Child } from '../../test/helpers/child.js'
import type { CpuSubject } from '../cpu.js'
import { toolCallBody } from '../load.js'
import { loopbackPool } from '../loopback.js'
import { lastLine, type ProcessGroup } from '../processes.js'

/** The peers the benchmark knows, in the order they run (`BENCH_PEERS`). */
export const PEER_IDS = ['ssh', 'pagekite', 'pipenet'] as const
export type PeerId = (typeof PEER_IDS)[number]

/** The outcome of looking for a peer's programs: ready (with a version line) or skipped. */
export type PeerReadiness =
  | { readonly ready: true; readonly version: string }
  | { readonly ready: false; readonly reason: string }

/** A peer tunnel that is up: where to call it and whose CPU to count. */
export interface RunningPeer {
  /** Origin of the public side, e.g. `http://abcd.localhost:41234`; the section adds the path. */
  readonly origin: string
  readonly cpu: readonly CpuSubject[]
  /** Stop its processes and remove its files. */
  stop(): Promise<void>
}

/** One peer tunnel. */
export interface Peer {
  readonly id: PeerId
  /** Row label, e.g. "ssh -R". */
  readonly label: string
  /** Find the programs, installing them where the run may; called once per run. */
  prepare(): Promise<PeerReadiness>
  /** Start server and client in front of 127.0.0.1:`originPort`; rejects with the reason. */
  start(group: ProcessGroup, originPort: number): Promise<RunningPeer>
}

/** How long a peer may take to pass the origin's answer through once started. */
export const START_TIMEOUT_MS = 30_000

/**
 * Wait until a small `tools/call` POSTed to `origin` + `/mcp` comes back with the origin's answer
 * (both bench origins answer it), i.e. the tunnel is up end to end. Rejects after `ms`, or at once
 * when one of `children` exited, with that child's last line.
 */
export async function waitUntilTunnelled(
  origin: string,
  children: readonly Child[],
  ms = START_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + ms
  let last: string
  for (;;) {
    const dead = children.find((c) => c.proc.exitCode !== null || c.proc.signalCode !== null)
    if (dead) throw new Error(`exited: ${lastLine(dead)}`)
    // Peer hosts such as abcd.localhost or abcd.bench.test resolve to 127.0.0.1 in the pool.
    const pool = loopbackPool(origin, 1)
    try {
      const res = await pool.request({
        path: '/mcp',
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: toolCallBody(0),
        signal: AbortSignal.timeout(5_000),
      })
      const text = await res.body.text()
      if (res.statusCode === 200 && text.includes('"result"')) return
      last = `HTTP ${res.statusCode}: ${text.slice(0, 120).replace(/\s+/g, ' ')}`
    } catch (err) {
      last = (err as Error).message
    } finally {
      await pool.destroy()
    }
    if (Date.now() > deadline) {
      throw new Error(`did not pass a call through within ${ms / 1000} s (last: ${last})`)
    }
    await sleep(200)
  }
}
