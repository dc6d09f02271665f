// Section 3: 10 MiB responses from test/fixtures/bulk-server.mjs, direct, through two TCP relays
// that only pass bytes (the floor of any tunnel), through two plain HTTP proxies in Node and two
// nginx proxies (the floor of one that reads HTTP at both ends) and through Burrow (`burrow up --upstream`), one transfer at a
// time (c=1) and four at once (c=4); and through the peer tunnels (bench/peers/), one transfer at
// a time.
import { progress, runCell, type BenchContext } from '../cell.js'
import { profileArgs } from '../config.js'
import type { CpuSubject } from '../cpu.js'
import { FIXTURES, startBurrowUp, startFixture } from '../launch.js'
import { peerRows } from '../peers/peer-rows.js'
import { HTTP_PROXIES, NGINX_PROXIES, relayFloorRows } from '../relay-floor.js'
import { transferRow, unavailableRow, type Row } from '../report.js'
import type { LoadOptions } from '../load.js'
import { runTransfer, type TransferResult } from '../transfer.js'

const CONCURRENCY = [1, 4] as const
/** Size of one transfer. */
export const TRANSFER_BYTES = 10 * 1024 * 1024

function describe(r: TransferResult): string {
  const errors = r.errors > 0 ? `, ${r.errors} errors` : ''
  return `${r.megabytesPerSecond.toFixed(0)} MB/s, ${r.transfers} transfers, p50 ${r.p50Ms.toFixed(1)} ms${errors}`
}

/** Measure the transfer rows. */
export async function bulkTransfer(ctx: BenchContext): Promise<Row[]> {
  progress('10 MiB transfers\n')
  const server = await startFixture(ctx.group, FIXTURES.bulk)
  const rows: Row[] = []
  try {
    const directUrl = `http://127.0.0.1:${server.port}/mcp`
    const serverCpu: CpuSubject = { label: 'server', pids: () => [server.pid] }
    const baselines = new Map<number, Row>()
    const directName = '10 MiB transfer · direct'
    for (const c of CONCURRENCY) {
      const { result, cpu } = await runCell(
        ctx,
        directName,
        c,
        [serverCpu],
        (o) => runTransfer(directUrl, TRANSFER_BYTES, o),
        describe,
      )
      const row = { ...transferRow(directName, c, result, cpu), id: `bulk-direct-${c}` }
      baselines.set(c, row)
      rows.push(row)
    }

    // What every floor's and every peer's cells share: the same server, transfers and baselines.
    const cells = {
      serverPort: server.port,
      serverCpu,
      path: '/mcp',
      unit: 'MB/s' as const,
      measure: (url: string, o: LoadOptions) => runTransfer(url, TRANSFER_BYTES, o),
      describe,
      toRow: transferRow,
      baselines,
    }
    rows.push(
      ...(await relayFloorRows(ctx, {
        ...cells,
        name: '10 MiB transfer · two TCP relays (floor)',
        idPrefix: 'bulk-floor',
        concurrency: CONCURRENCY,
      })),
    )
    rows.push(
      ...(await relayFloorRows(ctx, {
        ...cells,
        hops: HTTP_PROXIES,
        name: '10 MiB transfer · two HTTP proxies (HTTP floor)',
        idPrefix: 'bulk-proxies',
        concurrency: [1],
      })),
    )
    rows.push(
      ...(await relayFloorRows(ctx, {
        ...cells,
        hops: NGINX_PROXIES,
        name: '10 MiB transfer · two nginx proxies (native HTTP floor)',
        idPrefix: 'bulk-nginx',
        concurrency: [1],
      })),
    )

    rows.push(...(await burrowRows(ctx, directUrl, serverCpu, baselines)))
    rows.push(
      ...(await peerRows(ctx, {
        ...cells,
        name: '10 MiB transfer',
        idPrefix: 'bulk-peer',
        concurrency: [1],
      })),
    )
    return rows
  } finally {
    await ctx.group.stop(server.child)
  }
}

/** The Burrow rows: the same transfers through burrowd and `burrow up --upstream`. */
async function burrowRows(
  ctx: BenchContext,
  directUrl: string,
  serverCpu: CpuSubject,
  baselines: ReadonlyMap<number, Row>,
): Promise<Row[]> {
  const name = '10 MiB transfer · Burrow'
  const rows: Row[] = []
  let client
  try {
    client = await startBurrowUp(
      ctx.group,
      ctx.burrowd.broker,
      ctx.keys.bulk,
      ['--upstream', directUrl],
      profileArgs(ctx.config),
    )
  } catch (err) {
    for (const c of CONCURRENCY) rows.push(unavailableRow(name, c, 'MB/s', (err as Error).message))
    return rows
  }
  try {
    const subjects: CpuSubject[] = [
      { label: 'burrowd', pids: () => [ctx.burrowd.pid] },
      { label: 'burrow', pids: () => [client.pid] },
      serverCpu,
    ]
    for (const c of CONCURRENCY) {
      const { result, cpu } = await runCell(
        ctx,
        name,
        c,
        subjects,
        (o) => runTransfer(client.url, TRANSFER_BYTES, o),
        describe,
      )
      rows.push({
        ...transferRow(name, c, result, cpu, baselines.get(c)),
        id: `bulk-burrow-${c}`,
      })
    }
  } finally {
    await ctx.group.stop(client.child)
  }
  return rows
}
