// Section "cluster": small `tools/call` throughput at c=50 with two burrowd nodes sharing one
// database and a Redis (BENCH_REDIS_URL, else TEST_REDIS_URL, else redis://127.0.0.1:6379):
// calls sent to the node that holds the tunnel's client, then calls sent to the other node,
// which forwards each one over its node link. The second row is compared with the first, so the
// ratio is what crossing nodes costs. Skipped, with the reason, when Redis cannot be reached.
import { Redis } from 'ioredis'
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
export const CLUSTER_ROW_NAME = 'small call, HTTP, two nodes'

/** Measure the cluster rows. */
export async function clusterCalls(ctx: BenchContext): Promise<Row[]> {
  progress('small tools/call on the holding node and across nodes\n')
  const names = [`${CLUSTER_ROW_NAME} · holding node`, `${CLUSTER_ROW_NAME} · across nodes`]
  const redisUrl =
    process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
  const reachable = await redisAnswers(redisUrl)
  if (reachable !== null) {
    return names.map((n) => unavailableRow(n, CONCURRENCY, 'calls/s', reachable))
  }
  const server = await startFixture(ctx.group, FIXTURES.rpcHttp)
  const data = tempDataDir()
  try {
    const [key] = await createTunnels(data.path, ['rpc'])
    const env = { BURROW_REDIS_URL: redisUrl }
    const nodeArgs = profileArgs(ctx.config)
    const holder = await startBurrowd(ctx.group, data.path, { nodeArgs, env })
    const other = await startBurrowd(ctx.group, data.path, { nodeArgs, env })
    const client = await startBurrowUp(
      ctx.group,
      holder.broker,
      key!,
      ['--upstream', `http://127.0.0.1:${server.port}/mcp`],
      nodeArgs,
    )
    try {
      const subjects: CpuSubject[] = [
        { label: 'burrowd', pids: () => [holder.pid, other.pid] },
        { label: 'burrow', pids: () => [client.pid] },
        { label: 'server', pids: () => [server.pid] },
      ]
      const across = new URL(client.url)
      across.port = new URL(other.broker).port
      const urls = [client.url, across.toString()]
      const rows: Row[] = []
      let baseline: Row | undefined
      for (const [i, name] of names.entries()) {
        try {
          const { result, cpu } = await runCell(
            ctx,
            name,
            CONCURRENCY,
            subjects,
            (o) => runLoad({ url: urls[i]!, headers: CALL_HEADERS }, o),
            describeCalls,
          )
          const row = { ...callRow(name, CONCURRENCY, result, cpu, baseline), id: `cluster-${i}` }
          baseline ??= row
          rows.push(row)
        } catch (err) {
          rows.push(unavailableRow(name, CONCURRENCY, 'calls/s', (err as Error).message))
        }
      }
      return rows
    } finally {
      await ctx.group.stop(client.child)
      await ctx.group.stop(other.child)
      await ctx.group.stop(holder.child)
    }
  } finally {
    await ctx.group.stop(server.child)
    data.remove()
  }
}

/** Null when Redis at `url` answers PING, else why not. */
async function redisAnswers(url: string): Promise<string | null> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000 })
  redis.on('error', () => {})
  try {
    await redis.connect()
    await redis.ping()
    return null
  } catch (err) {
    return `skipped: no Redis at ${url} (${(err as Error).message}); set BENCH_REDIS_URL`
  } finally {
    redis.disconnect()
  }
}
