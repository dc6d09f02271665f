// Section "quota": small `tools/call` throughput through Burrow with quota enforcement on (the
// default: every call counted in the live counters, written ahead to SQLite) and off
// (`BURROW_QUOTAS=off`), each on a fresh burrowd of its own, at c=50. The "on" row is compared
// with the "off" row, so the ratio is the cost of exact quotas on the hot path.
import { progress, runCell, type BenchContext } from '../cell.js'
import { profileArgs } from '../config.js'
import type { CpuSubject } from '../cpu.js'
import {
  createTunnels,
  FIXTURES,
  startBurrowd,
  startBurrowUp,
  startFixture,
  tempDataDir,
} from '../launch.js'
import { runLoad } from '../load.js'
import { callRow, unavailableRow, type Row } from '../report.js'
import { CALL_HEADERS, describeCalls } from './small-calls.js'

const CONCURRENCY = 50
/** Row names; the text after "·" is what the comparison column names the baseline. */
export const QUOTA_ROW_NAME = 'small call, HTTP, quota enforcement'

/** Measure the quota rows. */
export async function quotaCalls(ctx: BenchContext): Promise<Row[]> {
  progress('small tools/call with quota enforcement off and on\n')
  const server = await startFixture(ctx.group, FIXTURES.rpcHttp)
  const rows: Row[] = []
  try {
    let off: Row | undefined
    for (const quotas of ['off', 'on'] as const) {
      const name = `${QUOTA_ROW_NAME} · ${quotas}`
      try {
        const row = await measure(ctx, server, quotas, name, off)
        if (quotas === 'off') off = row
        rows.push(row)
      } catch (err) {
        rows.push(unavailableRow(name, CONCURRENCY, 'calls/s', (err as Error).message))
      }
    }
    return rows
  } finally {
    await ctx.group.stop(server.child)
  }
}

async function measure(
  ctx: BenchContext,
  server: { pid: number; port: number },
  quotas: 'on' | 'off',
  name: string,
  baseline: Row | undefined,
): Promise<Row> {
  const data = tempDataDir()
  try {
    const [key] = await createTunnels(data.path, ['rpc'])
    const burrowd = await startBurrowd(ctx.group, data.path, {
      nodeArgs: profileArgs(ctx.config),
      env: { BURROW_QUOTAS: quotas },
    })
    try {
      const client = await startBurrowUp(
        ctx.group,
        burrowd.broker,
        key!,
        ['--upstream', `http://127.0.0.1:${server.port}/mcp`],
        profileArgs(ctx.config),
      )
      try {
        const subjects: CpuSubject[] = [
          { label: 'burrowd', pids: () => [burrowd.pid] },
          { label: 'burrow', pids: () => [client.pid] },
          { label: 'server', pids: () => [server.pid] },
        ]
        const { result, cpu } = await runCell(
          ctx,
          name,
          CONCURRENCY,
          subjects,
          (o) => runLoad({ url: client.url, headers: CALL_HEADERS }, o),
          describeCalls,
        )
        return { ...callRow(name, CONCURRENCY, result, cpu, baseline), id: `quota-${quotas}-50` }
      } finally {
        await ctx.group.stop(client.child)
      }
    } finally {
      await ctx.group.stop(burrowd.child)
    }
  } finally {
    data.remove()
  }
}
