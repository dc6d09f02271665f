// Section "policy": small `tools/call` throughput through Burrow with a tunnel that has no
// governance policy of its own (the default: every tool allowed, secrets masked in history) and
// with a realistic one (deny globs, two rate limits too high to refuse anything, redaction of
// keys and patterns, history with bodies), each on a fresh burrowd, at c=50. The ratio is what
// governance costs on the hot path; the goal is at least 0.8.
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
export const POLICY_ROW_NAME = 'small call, HTTP, governance policy'

/** A policy a careful user would set: nothing in it refuses the bench's calls. */
export const REALISTIC_POLICY = {
  tools: { allow: ['*'], deny: ['*delete*', 'shell__*', 'drop_*'] },
  rate_limits: [
    { tool: 'bench', limit: 1_000_000, per_seconds: 60 },
    { method: '*', limit: 1_000_000, per_seconds: 60 },
  ],
  redaction: {
    keys: ['password', 'api_key', 'token'],
    patterns: ['sk-[A-Za-z0-9]{20,}', 'internal-[0-9]{6}'],
    detect_secrets: true,
    forwarded: false,
  },
  zero_knowledge: false,
}

/** Measure the policy rows. */
export async function policyCalls(ctx: BenchContext): Promise<Row[]> {
  progress('small tools/call without and with a realistic governance policy\n')
  const server = await startFixture(ctx.group, FIXTURES.rpcHttp)
  const rows: Row[] = []
  try {
    let none: Row | undefined
    for (const variant of ['none', 'realistic'] as const) {
      const name = `${POLICY_ROW_NAME} · ${variant}`
      try {
        const row = await measure(ctx, server, variant, name, none)
        if (variant === 'none') none = row
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
  variant: 'none' | 'realistic',
  name: string,
  baseline: Row | undefined,
): Promise<Row> {
  const data = tempDataDir()
  try {
    const [key] = await createTunnels(
      data.path,
      ['rpc'],
      variant === 'realistic' ? REALISTIC_POLICY : undefined,
    )
    const burrowd = await startBurrowd(ctx.group, data.path, { nodeArgs: profileArgs(ctx.config) })
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
        return { ...callRow(name, CONCURRENCY, result, cpu, baseline), id: `policy-${variant}-50` }
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
