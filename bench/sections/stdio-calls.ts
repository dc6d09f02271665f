// Section 2: the same small call against a stdio MCP server (bench/fixtures/rpc-stdio-server.mjs)
// exposed through supergateway (stateful Streamable HTTP, the baseline) and through Burrow
// (`burrow up --stdio`). Each side opens one MCP session first; every call carries its headers.
import { progress, runCell, type BenchContext } from '../cell.js'
import { profileArgs } from '../config.js'
import { descendantsOf, type CpuSubject } from '../cpu.js'
import { FIXTURES, nodeCommand, startBurrowUp, startSupergateway } from '../launch.js'
import { runLoad } from '../load.js'
import { openMcpSession } from '../mcp-session.js'
import { lastLine } from '../processes.js'
import { callRow, unavailableRow, type Row } from '../report.js'
import { describeCalls } from './small-calls.js'

const CONCURRENCY = [1, 50] as const

/** Measure the stdio rows. */
export async function stdioCalls(ctx: BenchContext): Promise<Row[]> {
  progress('small tools/call to a stdio MCP server\n')
  const command = nodeCommand(FIXTURES.rpcStdio)
  const rows: Row[] = []
  const baselines = new Map<number, Row>()

  const sgName = 'stdio call · supergateway'
  try {
    const gateway = await startSupergateway(ctx.group, command)
    try {
      const target = await openMcpSession(gateway.url)
      const subjects: CpuSubject[] = [
        { label: 'supergateway', pids: () => [gateway.pid] },
        { label: 'server', pids: () => descendantsOf(gateway.pid) },
      ]
      for (const c of CONCURRENCY) {
        const { result, cpu } = await runCell(
          ctx,
          sgName,
          c,
          subjects,
          (o) => runLoad(target, o),
          describeCalls,
        )
        const row = { ...callRow(sgName, c, result, cpu), id: `stdio-supergateway-${c}` }
        baselines.set(c, row)
        rows.push(row)
      }
    } finally {
      await ctx.group.stop(gateway.child)
    }
  } catch (err) {
    progress(`  supergateway unavailable: ${(err as Error).message}\n`)
    for (const c of CONCURRENCY) {
      if (!baselines.has(c)) rows.push(unavailableRow(sgName, c, 'calls/s', (err as Error).message))
    }
  }

  const name = 'stdio call · Burrow'
  let client
  try {
    client = await startBurrowUp(
      ctx.group,
      ctx.burrowd.broker,
      ctx.keys.stdio,
      ['--stdio', command],
      profileArgs(ctx.config),
    )
  } catch (err) {
    const reason = (err as Error).message
    progress(`  burrow up --stdio unavailable: ${reason}\n`)
    for (const c of CONCURRENCY) rows.push(unavailableRow(name, c, 'calls/s', reason))
    return rows
  }
  try {
    const target = await openMcpSession(client.url)
    const subjects: CpuSubject[] = [
      { label: 'burrowd', pids: () => [ctx.burrowd.pid] },
      { label: 'burrow', pids: () => [client.pid] },
      { label: 'server', pids: () => descendantsOf(client.pid) },
    ]
    for (const c of CONCURRENCY) {
      const { result, cpu } = await runCell(
        ctx,
        name,
        c,
        subjects,
        (o) => runLoad(target, o),
        describeCalls,
      )
      rows.push({ ...callRow(name, c, result, cpu, baselines.get(c)), id: `stdio-burrow-${c}` })
    }
  } catch (err) {
    const reason = `${(err as Error).message} (burrow: ${lastLine(client.child)})`
    progress(`  Burrow stdio failed: ${reason}\n`)
    for (const c of CONCURRENCY) {
      if (!rows.some((r) => r.id === `stdio-burrow-${c}`))
        rows.push(unavailableRow(name, c, 'calls/s', reason))
    }
  } finally {
    await ctx.group.stop(client.child)
  }
  return rows
}
