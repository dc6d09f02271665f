// The peer tunnels' rows of a section: for each peer selected (`BENCH_PEERS`), find or install
// its programs (once per run), start it in front of the section's origin server, measure the same
// cells as Burrow's, and stop it. A peer that cannot be found, installed or started gets a row
// that says why and a "skipped" line on stderr; it never fails the run.
import { progress, runCell, type BenchContext, type CpuReading } from '../cell.js'
import type { CpuSubject } from '../cpu.js'
import type { LoadOptions } from '../load.js'
import { unavailableRow, type Row } from '../report.js'
import { pagekiteTunnel } from './pagekite-tunnel.js'
import type { Peer, PeerId, PeerReadiness, RunningPeer } from './peer.js'
import { pipenetTunnel } from './pipenet-tunnel.js'
import { sshTunnel } from './ssh-tunnel.js'

const PEERS: Readonly<Record<PeerId, Peer>> = {
  ssh: sshTunnel,
  pagekite: pagekiteTunnel,
  pipenet: pipenetTunnel,
}

/** How one section measures and reports a cell (as for the floor rows). */
export interface PeerCells<T> {
  /** Row names are `<name> · <peer label>`, e.g. "small call, HTTP · ssh -R". */
  readonly name: string
  /** Row ids are `<idPrefix>-<peer id>-<c>`, e.g. "small-peer-ssh-50". */
  readonly idPrefix: string
  readonly unit: Row['unit']
  readonly concurrency: readonly number[]
  /** The origin server the direct and Burrow rows called, its port and CPU subject. */
  readonly serverPort: number
  readonly serverCpu: CpuSubject
  /** Path of the calls, e.g. `/mcp`. */
  readonly path: string
  readonly measure: (url: string, opts: LoadOptions) => Promise<T>
  readonly describe: (result: T) => string
  readonly toRow: (name: string, c: number, result: T, cpu: CpuReading, baseline?: Row) => Row
  /** The direct rows by concurrency, to compare with. */
  readonly baselines: ReadonlyMap<number, Row>
  /** Unmeasured load through `url` before the first cell, if any. */
  readonly prime?: (url: string) => Promise<void>
}

const readiness = new Map<PeerId, Promise<PeerReadiness>>()

/** Find or install `peer`'s programs once per run, saying on stderr when it is skipped. */
function prepare(peer: Peer): Promise<PeerReadiness> {
  let ready = readiness.get(peer.id)
  if (!ready) {
    ready = peer
      .prepare()
      .catch((err: Error): PeerReadiness => ({ ready: false, reason: err.message }))
      .then((r) => {
        if (!r.ready) progress(`  ${peer.label}: skipped: ${r.reason}\n`)
        return r
      })
    readiness.set(peer.id, ready)
  }
  return ready
}

/** Measure `cells` through every selected peer, when the `peers` section runs. */
export async function peerRows<T>(ctx: BenchContext, cells: PeerCells<T>): Promise<Row[]> {
  if (!ctx.config.only.has('peers')) return []
  const rows: Row[] = []
  for (const id of ctx.config.peers) {
    const peer = PEERS[id]
    const name = `${cells.name} · ${peer.label}`
    const skip = (reason: string) => {
      for (const c of cells.concurrency) rows.push(unavailableRow(name, c, cells.unit, reason))
    }
    const ready = await prepare(peer)
    if (!ready.ready) {
      skip(`skipped: ${ready.reason}`)
      continue
    }
    let running: RunningPeer
    try {
      running = await peer.start(ctx.group, cells.serverPort)
    } catch (err) {
      progress(`  ${peer.label}: skipped: ${(err as Error).message}\n`)
      skip(`skipped: ${(err as Error).message}`)
      continue
    }
    try {
      const url = `${running.origin}${cells.path}`
      const subjects = [...running.cpu, cells.serverCpu]
      await cells.prime?.(url)
      for (const c of cells.concurrency) {
        const { result, cpu } = await runCell(
          ctx,
          name,
          c,
          subjects,
          (o) => cells.measure(url, o),
          cells.describe,
        )
        rows.push({
          ...cells.toRow(name, c, result, cpu, cells.baselines.get(c)),
          id: `${cells.idPrefix}-${id}-${c}`,
        })
      }
    } finally {
      await running.stop()
    }
  }
  return rows
}

/** One line per peer prepared in this run: its version, or why it was skipped. */
export async function peerSummary(): Promise<string[]> {
  const lines: string[] = []
  for (const [id, ready] of readiness) {
    const r = await ready
    lines.push(`${PEERS[id].label}: ${r.ready ? r.version : `skipped: ${r.reason}`}`)
  }
  return lines
}
