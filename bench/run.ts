// `npm run bench`: Burrow's performance side by side with its baselines and with other tunnels
// (bench/peers/), measured in one run on this machine, everything on 127.0.0.1. Prints the
// machine, a results table (with ratios against the baselines), the peers' versions or why they
// were skipped, and the targets with a verdict each. Settings: bench/config.ts.
import { type BenchContext, progress } from './cell.js'
import {
  loadBenchConfig,
  profileArgs,
  REPEATED_SECTIONS,
  type BenchConfig,
  type Section,
} from './config.js'
import { idleTunnels } from './idle-tunnels.js'
import { WARMUP_CAP_MS } from './load.js'
import { warnWithoutLoadGeneratorFlag } from './load-generator-flags.js'
import { createTunnels, removeTempDataDirs, startBurrowd, tempDataDir } from './launch.js'
import { describeMachine } from './machine.js'
import { medianRows } from './median-rows.js'
import { nginxSummary } from './nginx-proxies.js'
import { peerSummary } from './peers/peer-rows.js'
import { ProcessGroup } from './processes.js'
import { resultsTable, targetsTable, type Row } from './report.js'
import { bulkTransfer } from './sections/bulk-transfer.js'
import { clusterCalls } from './sections/cluster-calls.js'
import { policyCalls } from './sections/policy-calls.js'
import { quotaCalls } from './sections/quota-calls.js'
import { sdkCalls } from './sections/sdk-calls.js'
import { smallCalls } from './sections/small-calls.js'
import { stdioCalls } from './sections/stdio-calls.js'
import { checkTargets } from './targets.js'

/** How each cell warms up, for the header lines. */
function warmup(config: BenchConfig): string {
  const calls =
    config.warmupCalls > 0
      ? ` and, for calls, at least ${config.warmupCalls.toLocaleString('en-US')} calls (at most ${Math.max(WARMUP_CAP_MS / 1000, config.warmupSeconds)} s)`
      : ''
  return `a warm-up of ${config.warmupSeconds} s${calls}`
}

async function main(group: ProcessGroup): Promise<void> {
  const config = loadBenchConfig()
  warnWithoutLoadGeneratorFlag()
  const started = new Date()
  const machine = describeMachine()
  progress(`burrow bench: ${config.seconds} s per cell after ${warmup(config)}; ${machine}\n`)
  const rows: Row[] = []
  /** Each round's rows of the sections that ran several times: the targets' ratios are read in them. */
  const roundRows: Row[][] = []

  const tunnelled = ['small', 'quota', 'policy', 'stdio', 'sdk', 'transfer', 'cluster'] as const
  if (tunnelled.some((s) => config.only.has(s))) {
    const data = tempDataDir()
    try {
      const [rpc, bulk, stdio, sdk] = await createTunnels(data.path, [
        'rpc',
        'bulk',
        'stdio',
        'sdk',
      ])
      const burrowd = await startBurrowd(group, data.path, { nodeArgs: profileArgs(config) })
      const ctx: BenchContext = {
        config,
        group,
        burrowd,
        keys: { rpc: rpc!, bulk: bulk!, stdio: stdio!, sdk: sdk! },
      }
      const sections: readonly [Section, (ctx: BenchContext) => Promise<Row[]>][] = [
        ['small', smallCalls],
        ['quota', quotaCalls],
        ['policy', policyCalls],
        ['stdio', stdioCalls],
        ['sdk', sdkCalls],
        ['transfer', bulkTransfer],
        ['cluster', clusterCalls],
      ]
      for (const [section, measure] of sections) {
        if (!config.only.has(section)) continue
        const times = REPEATED_SECTIONS.has(section) ? config.rounds : 1
        const rounds: Row[][] = []
        for (let i = 1; i <= times; i++) {
          if (times > 1) progress(`round ${i} of ${times}: `)
          rounds.push(await measure(ctx))
        }
        rows.push(...medianRows(rounds))
        if (times > 1) rounds.forEach((round, i) => (roundRows[i] ??= []).push(...round))
      }
      await group.stop(burrowd.child)
    } finally {
      await group.stopAll()
      data.remove()
    }
  }
  if (config.only.has('idle')) rows.push(...(await idleTunnels(group, config)))
  const peers = await peerSummary()
  const nginx = await nginxSummary()

  const out = [
    '',
    `Burrow benchmark, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    `Machine: ${machine}`,
    `Cells: ${config.seconds} s measured after ${warmup(config)}; all on 127.0.0.1; ` +
      'CPU is % of one core per process during the window (gen = this load generator).' +
      (config.rounds > 1
        ? ` Sections ${[...REPEATED_SECTIONS].join(', ')}: ${config.rounds} rounds, each row the round with the median value, each target's ratio the median of the rounds' ratios.`
        : ''),
    '',
    resultsTable(rows),
    '',
    ...(peers.length > 0 ? [`Peer tunnels: ${peers.join('; ')}.`, ''] : []),
    ...(nginx !== null ? [`Native HTTP floor: ${nginx}.`, ''] : []),
    ...backgroundWarning(rows),
    targetsTable(checkTargets(rows, roundRows)),
    '',
  ]
  process.stdout.write(out.join('\n'))
}

/** Warn when other programs competed for the cores during the cells. */
function backgroundWarning(rows: readonly Row[]): string[] {
  const worst = Math.max(0, ...rows.map((r) => r.otherCpu ?? 0))
  if (worst < 15) return []
  return [
    `Warning: other processes used up to ${Math.round(worst)}% of a core during some cells ` +
      '("other" in the CPU column); those numbers are low. Re-run on an idle machine.',
    '',
  ]
}

const group = new ProcessGroup()
let interrupted = false
const onSignal = (signal: NodeJS.Signals) => {
  if (interrupted) return
  interrupted = true
  progress(`\n${signal}: stopping every benchmark process …\n`)
  void group.stopAll().finally(() => {
    removeTempDataDirs()
    process.exit(130)
  })
}
process.on('SIGINT', onSignal)
process.on('SIGTERM', onSignal)

main(group)
  .catch((err: Error) => {
    progress(`bench failed: ${err.stack ?? err.message}\n`)
    process.exitCode = 1
  })
  .finally(() => group.stopAll())
