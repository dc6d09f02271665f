// Section 1: small `tools/call` over HTTP, direct to the fast JSON-RPC fixture, through two TCP
// relays that only pass bytes (the floor of any tunnel), through two plain HTTP proxies in Node and
// two nginx proxies (the floor of one that reads HTTP at both ends), through Burrow (burrowd + `burrow up --upstream`) and
// through the peer tunnels (bench/peers/), at concurrency 1 and 50.
import { progress, runCell, type BenchContext } from '../cell.js'
import { profileArgs } from '../config.js'
import type { CpuSubject } from '../cpu.js'
import { FIXTURES, startBurrowUp, startFixture } from '../launch.js'
import { runLoad, type CallTarget, type LoadOptions, type LoadResult } from '../load.js'
import { peerRows } from '../peers/peer-rows.js'
import { HTTP_PROXIES, NGINX_PROXIES, relayFloorRows } from '../relay-floor.js'
import { callRow, unavailableRow, type Row } from '../report.js'

const CONCURRENCY = [1, 50] as const
/** The headers of every small call: a JSON-RPC POST, either answer form accepted. */
export const CALL_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
}

/** Describe a small-call result in the progress line. */
export function describeCalls(r: LoadResult): string {
  const errors = r.errors > 0 ? `, ${r.errors} errors` : ''
  return `${Math.round(r.callsPerSecond)} calls/s, p50 ${r.p50Ms.toFixed(3)} ms, p99 ${r.p99Ms.toFixed(2)} ms${errors}`
}

/**
 * Load `url` at c=50 for the warm-up time, unmeasured, before a tunnel's first cell: a process
 * that just started runs its code in V8's interpreter and compiles it during the first thousands
 * of calls, which at c=1 (the first cell) cost a fresh burrowd 40 % more CPU per call than the
 * same cell run again. A long-running tunnel is warm; so is every tunnel here before it is measured.
 */
export async function primeCalls(ctx: BenchContext, url: string): Promise<void> {
  await runLoad(
    { url, headers: CALL_HEADERS },
    { concurrency: 50, warmupMs: 0, durationMs: ctx.config.warmupSeconds * 1000 },
  )
}

/** Measure the HTTP rows. */
export async function smallCalls(ctx: BenchContext): Promise<Row[]> {
  progress('small tools/call over HTTP\n')
  const server = await startFixture(ctx.group, FIXTURES.rpcHttp)
  const rows: Row[] = []
  try {
    const direct: CallTarget = { url: `http://127.0.0.1:${server.port}/mcp`, headers: CALL_HEADERS }
    const serverCpu: CpuSubject = { label: 'server', pids: () => [server.pid] }
    const baselines = new Map<number, Row>()
    for (const c of CONCURRENCY) {
      const name = 'small call, HTTP · direct'
      const { result, cpu } = await runCell(
        ctx,
        name,
        c,
        [serverCpu],
        (o) => runLoad(direct, o),
        describeCalls,
      )
      const row = { ...callRow(name, c, result, cpu), id: `small-direct-${c}` }
      baselines.set(c, row)
      rows.push(row)
    }

    // What every floor's and every peer's cells share: the same server, calls and baselines.
    const cells = {
      concurrency: CONCURRENCY,
      serverPort: server.port,
      serverCpu,
      path: '/mcp',
      unit: 'calls/s' as const,
      measure: (url: string, o: LoadOptions) => runLoad({ url, headers: CALL_HEADERS }, o),
      describe: describeCalls,
      toRow: callRow,
      baselines,
      prime: (url: string) => primeCalls(ctx, url),
    }
    rows.push(
      ...(await relayFloorRows(ctx, {
        ...cells,
        name: 'small call, HTTP · two TCP relays (floor)',
        idPrefix: 'small-floor',
      })),
    )
    rows.push(
      ...(await relayFloorRows(ctx, {
        ...cells,
        hops: HTTP_PROXIES,
        name: 'small call, HTTP · two HTTP proxies (HTTP floor)',
        idPrefix: 'small-proxies',
      })),
    )
    rows.push(
      ...(await relayFloorRows(ctx, {
        ...cells,
        hops: NGINX_PROXIES,
        name: 'small call, HTTP · two nginx proxies (native HTTP floor)',
        idPrefix: 'small-nginx',
      })),
    )

    rows.push(...(await burrowRows(ctx, direct, serverCpu, baselines)))
    rows.push(
      ...(await peerRows(ctx, {
        ...cells,
        name: 'small call, HTTP',
        idPrefix: 'small-peer',
      })),
    )
    return rows
  } finally {
    await ctx.group.stop(server.child)
  }
}

/** The Burrow rows: the same calls through burrowd and `burrow up --upstream`. */
async function burrowRows(
  ctx: BenchContext,
  direct: CallTarget,
  serverCpu: CpuSubject,
  baselines: ReadonlyMap<number, Row>,
): Promise<Row[]> {
  const name = 'small call, HTTP · Burrow'
  const rows: Row[] = []
  let client
  try {
    client = await startBurrowUp(
      ctx.group,
      ctx.burrowd.broker,
      ctx.keys.rpc,
      ['--upstream', direct.url],
      profileArgs(ctx.config),
    )
  } catch (err) {
    for (const c of CONCURRENCY)
      rows.push(unavailableRow(name, c, 'calls/s', (err as Error).message))
    return rows
  }
  try {
    const tunnelled: CallTarget = { url: client.url, headers: CALL_HEADERS }
    const subjects: CpuSubject[] = [
      { label: 'burrowd', pids: () => [ctx.burrowd.pid] },
      { label: 'burrow', pids: () => [client.pid] },
      serverCpu,
    ]
    await primeCalls(ctx, tunnelled.url)
    for (const c of CONCURRENCY) {
      const { result, cpu } = await runCell(
        ctx,
        name,
        c,
        subjects,
        (o) => runLoad(tunnelled, o),
        describeCalls,
      )
      rows.push({ ...callRow(name, c, result, cpu, baselines.get(c)), id: `small-burrow-${c}` })
    }
  } finally {
    await ctx.group.stop(client.child)
  }
  return rows
}
