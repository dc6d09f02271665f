// One benchmark cell: a warm-up, a measuring window with CPU accounting, and a progress line on
// stderr so a long run shows where it is.
import type { BenchConfig } from './config.js'
import { CpuMeter, type CpuSubject } from './cpu.js'
import type { Burrowd } from './launch.js'
import type { LoadOptions } from './load.js'
import type { ProcessGroup } from './processes.js'

/** CPU use during a cell: the per-process summary and what the rest of the machine used. */
export interface CpuReading {
  readonly summary: string
  readonly otherPercent: number | null
  /** CPU seconds per process during the window (`gen` first), and the window in seconds. */
  readonly perProcess: readonly { readonly label: string; readonly seconds: number }[]
  readonly wallSeconds: number
}

/** What every section gets. */
export interface BenchContext {
  readonly config: BenchConfig
  readonly group: ProcessGroup
  /** The burrowd shared by the call and transfer sections. */
  readonly burrowd: Burrowd
  /** Tunnel keys created for those sections. */
  readonly keys: Readonly<Record<'rpc' | 'bulk' | 'stdio' | 'sdk', string>>
}

/** Print progress on stderr (stdout carries the report). */
export function progress(text: string): void {
  process.stderr.write(text)
}

/** Run `measure` as one cell at `concurrency`, metering the CPU of `subjects`. */
export async function runCell<T>(
  ctx: BenchContext,
  title: string,
  concurrency: number,
  subjects: readonly CpuSubject[],
  measure: (opts: LoadOptions) => Promise<T>,
  describe: (result: T) => string,
): Promise<{ result: T; cpu: CpuReading }> {
  const meter = new CpuMeter(subjects)
  progress(`  ${title}, c=${concurrency} … `)
  const result = await measure({
    concurrency,
    warmupMs: ctx.config.warmupSeconds * 1000,
    warmupCalls: ctx.config.warmupCalls,
    durationMs: ctx.config.seconds * 1000,
    meter,
  })
  progress(`${describe(result)}\n`)
  const { perProcess, wall } = meter.used
  return {
    result,
    cpu: {
      summary: meter.summary,
      otherPercent: meter.otherPercent,
      perProcess,
      wallSeconds: wall,
    },
  }
}
