// The "floor" rows: the same cells as the direct ones, but through two TCP relays that only pass
// bytes (bench/fixtures/tcp-relay.mjs), standing where burrowd and `burrow up` stand. No tunnel
// with two extra processes can beat them on this machine, so the targets are read against them.
import { runCell, type BenchContext, type CpuReading } from './cell.js'
import type { CpuSubject } from './cpu.js'
import { startRelayPair } from './launch.js'
import type { LoadOptions } from './load.js'
import type { Row } from './report.js'

/** How one section measures and reports a cell. */
export interface FloorCells<T> {
  /** Row name, e.g. "small call, HTTP · two TCP relays (floor)". */
  readonly name: string
  /** Row ids are `<idPrefix>-<c>`. */
  readonly idPrefix: string
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

/** Measure `cells` through two relays in front of their server. */
export async function relayFloorRows<T>(ctx: BenchContext, cells: FloorCells<T>): Promise<Row[]> {
  const relays = await startRelayPair(ctx.group, cells.serverPort)
  const rows: Row[] = []
  try {
    const url = `http://127.0.0.1:${relays.port}${cells.path}`
    const subjects: CpuSubject[] = [{ label: 'relays', pids: () => relays.pids }, cells.serverCpu]
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
    for (const child of relays.children) await ctx.group.stop(child)
  }
}
