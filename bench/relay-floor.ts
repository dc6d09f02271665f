// The "floor" rows: the same cells as the direct ones, but through two processes standing where
// burrowd and `burrow up` stand. Two TCP relays that only pass bytes (bench/fixtures/tcp-relay.mjs)
// are the floor of any tunnel with two extra processes on this machine: the targets are read
// against them. Two plain HTTP reverse proxies (bench/fixtures/http-proxy.mjs) are the floor of
// one that reads HTTP at both ends, as Burrow must: what Node's HTTP costs before any work. Two
// nginx proxies (bench/nginx-proxies.ts) are the same floor in native code.
import { progress, runCell, type BenchContext, type CpuReading } from './cell.js'
import type { CpuSubject } from './cpu.js'
import { startHttpProxyPair, startRelayPair, type HopPair } from './launch.js'
import type { LoadOptions } from './load.js'
import { startNginxPair } from './nginx-proxies.js'
import type { ProcessGroup } from './processes.js'
import { unavailableRow, type Row } from './report.js'

/** The two processes a floor puts in the path, and the label of their CPU. */
export interface FloorHops {
  readonly label: string
  readonly start: (group: ProcessGroup, targetPort: number) => Promise<HopPair>
}

/** Two TCP relays: the floor of any tunnel. */
export const TCP_RELAYS: FloorHops = { label: 'relays', start: startRelayPair }

/** Two HTTP reverse proxies: the floor of a tunnel that reads HTTP at both ends. */
export const HTTP_PROXIES: FloorHops = { label: 'proxies', start: startHttpProxyPair }

/** Two nginx reverse proxies: the same floor with HTTP read in native code. */
export const NGINX_PROXIES: FloorHops = { label: 'nginx', start: startNginxPair }

/** How one section measures and reports a cell. */
export interface FloorCells<T> {
  /** Which pair stands in the path; two TCP relays by default. */
  readonly hops?: FloorHops
  /** Row name, e.g. "small call, HTTP · two TCP relays (floor)". */
  readonly name: string
  /** Row ids are `<idPrefix>-<c>`. */
  readonly idPrefix: string
  /** Unit of the rows, for the ones that say why the pair did not run. */
  readonly unit: Row['unit']
  readonly concurrency: readonly number[]
  /** The server the direct rows called, its port and CPU subject. */
  readonly serverPort: number
  readonly serverCpu: CpuSubject
  /** Path of the calls, e.g. `/mcp`. */
  readonly path: string
  readonly measure: (url: string, opts: LoadOptions) => Promise<T>
  readonly describe: (result: T) => string
  readonly toRow: (name: string, c: number, result: T, cpu: CpuReading, baseline?: Row) => Row
  /** The direct rows by concurrency, to compare with. */
  readonly baselines: ReadonlyMap<number, Row>
  /** Unmeasured load through `url` before the first cell (see `primeCalls`), if any. */
  readonly prime?: (url: string) => Promise<void>
}

/** Measure `cells` through two relays (or the pair `cells.hops` names) in front of their server. */
export async function relayFloorRows<T>(ctx: BenchContext, cells: FloorCells<T>): Promise<Row[]> {
  const hops = cells.hops ?? TCP_RELAYS
  let pair: HopPair
  try {
    pair = await hops.start(ctx.group, cells.serverPort)
  } catch (err) {
    const reason = `skipped: ${(err as Error).message}`
    progress(`  ${cells.name}: ${reason}\n`)
    return cells.concurrency.map((c) => unavailableRow(cells.name, c, cells.unit, reason))
  }
  const rows: Row[] = []
  try {
    const url = `http://127.0.0.1:${pair.port}${cells.path}`
    const subjects: CpuSubject[] = [{ label: hops.label, pids: () => pair.pids }, cells.serverCpu]
    await cells.prime?.(url)
    for (const c of cells.concurrency) {
      const { result, cpu } = await runCell(
        ctx,
        cells.name,
        c,
        subjects,
        (o) => cells.measure(url, o),
        cells.describe,
      )
      rows.push({
        ...cells.toRow(cells.name, c, result, cpu, cells.baselines.get(c)),
        id: `${cells.idPrefix}-${c}`,
      })
    }
    return rows
  } finally {
    for (const child of pair.children) await ctx.group.stop(child)
    pair.cleanup?.()
  }
}
