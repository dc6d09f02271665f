// Section 5: a real MCP SDK server over HTTP, the SDK's reference server (`server-everything` in
// its Streamable HTTP mode: express and the SDK's StreamableHTTPServerTransport, which answers
// every `tools/call` as a short SSE stream), called direct and through Burrow (`burrow up
// --upstream`) at c=50. Each side opens its own MCP session first; every call is the `echo` tool.
import { progress, runCell, type BenchContext } from '../cell.js'
import { profileArgs } from '../config.js'
import type { CpuSubject } from '../cpu.js'
import { startBurrowUp, startEverythingHttp } from '../launch.js'
import { runLoad, type CallTarget } from '../load.js'
import { openMcpSession } from '../mcp-session.js'
import { lastLine } from '../processes.js'
import { callRow, unavailableRow, type Row } from '../report.js'
import { describeCalls } from './small-calls.js'

const CONCURRENCY = 50
const NAME = 'SDK server, HTTP (SSE answers)'

/** A `tools/call` of server-everything's `echo` with the small call's payload. */
export function echoBody(id: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { message: 'benchmark payload, a typical small tool call' },
    },
  })
}

/** Measure the SDK server rows. */
export async function sdkCalls(ctx: BenchContext): Promise<Row[]> {
  progress('small tools/call to the MCP SDK reference server over HTTP\n')
  const rows: Row[] = []
  const measure = async (name: string, url: string, subjects: CpuSubject[]) => {
    const session = await openMcpSession(url)
    const target: CallTarget = { ...session, body: echoBody }
    return runCell(ctx, name, CONCURRENCY, subjects, (o) => runLoad(target, o), describeCalls)
  }
  const directName = `${NAME} · direct`
  const name = `${NAME} · Burrow`
  // Each side gets a server of its own: server-everything keeps every SSE event it sent for
  // resumption, so a server that already answered the other side's calls is slower.
  let baseline: Row | undefined
  try {
    await withServer(ctx, async (server, serverCpu) => {
      const direct = await measure(directName, server.url, [serverCpu])
      baseline = {
        ...callRow(directName, CONCURRENCY, direct.result, direct.cpu),
        id: 'sdk-direct-50',
      }
      rows.push(baseline)
    })
    await withServer(ctx, async (server, serverCpu) => {
      let client
      try {
        client = await startBurrowUp(
          ctx.group,
          ctx.burrowd.broker,
          ctx.keys.sdk,
          ['--upstream', server.url],
          profileArgs(ctx.config),
        )
      } catch (err) {
        rows.push(unavailableRow(name, CONCURRENCY, 'calls/s', (err as Error).message))
        return
      }
      try {
        const subjects: CpuSubject[] = [
          { label: 'burrowd', pids: () => [ctx.burrowd.pid] },
          { label: 'burrow', pids: () => [client.pid] },
          serverCpu,
        ]
        const { result, cpu } = await measure(name, client.url, subjects)
        rows.push({ ...callRow(name, CONCURRENCY, result, cpu, baseline), id: 'sdk-burrow-50' })
      } catch (err) {
        const reason = `${(err as Error).message} (burrow: ${lastLine(client.child)})`
        rows.push(unavailableRow(name, CONCURRENCY, 'calls/s', reason))
      } finally {
        await ctx.group.stop(client.child)
      }
    })
  } catch (err) {
    const reason = (err as Error).message
    progress(`  ${reason}\n`)
    for (const row of [directName, name])
      if (!rows.some((r) => r.name === row))
        rows.push(unavailableRow(row, CONCURRENCY, 'calls/s', reason))
  }
  return rows
}

/** Run `use` with a fresh server-everything, stopped afterwards. */
async function withServer(
  ctx: BenchContext,
  use: (server: { url: string; pid: number }, cpu: CpuSubject) => Promise<void>,
): Promise<void> {
  const server = await startEverythingHttp(ctx.group)
  try {
    await use(server, { label: 'server', pids: () => [server.pid] })
  } finally {
    await ctx.group.stop(server.child)
  }
}
