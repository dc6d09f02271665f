// The results table: one row per cell with its value, latency, errors and CPU use, and for Burrow
// rows the comparison with the baseline measured in the same run (direct, or supergateway).
// Printed as a Markdown table whose columns line up in a terminal too.
import type { CpuReading } from './cell.js'
import type { LoadResult } from './load.js'
import type { TransferResult } from './transfer.js'

/** One measured (or unavailable) cell. */
export interface Row {
  /** Stable key for the targets, e.g. "small-burrow-50". */
  readonly id?: string
  /** What was measured, e.g. "small call, HTTP · direct". */
  readonly name: string
  readonly concurrency: number | null
  readonly unit: 'calls/s' | 'MB/s' | 'KB/tunnel'
  /** Null when the cell could not run; `note` says why. */
  readonly value: number | null
  readonly p50Ms?: number
  readonly p99Ms?: number
  readonly errors?: number
  /** CPU use per process in percent of one core, e.g. "gen 97 · burrowd 70". */
  readonly cpu?: string
  /**
   * CPU time per unit of work and process, e.g. "burrowd 71 · burrow 90 µs/call": steadier than
   * throughput on a shared machine, since it does not depend on how much CPU the run got.
   */
  readonly cpuPerUnit?: string
  /** The same figures as numbers, by process label (e.g. `{ burrowd: 71, burrow: 90 }`). */
  readonly cpuPerUnitByProcess?: Readonly<Record<string, number>>
  /** CPU other processes used during the cell, in percent of one core. */
  readonly otherCpu?: number
  readonly note?: string
  /** The row this one is compared with. */
  readonly baseline?: Row
}

/** A row from a small-call cell. */
export function callRow(
  name: string,
  concurrency: number,
  r: LoadResult,
  cpu: CpuReading,
  baseline?: Row,
): Row {
  return {
    name,
    concurrency,
    unit: 'calls/s',
    value: r.callsPerSecond,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    errors: r.errors,
    cpu: cpu.summary,
    cpuPerUnit: perUnit(cpu, r.calls, 1e6, 'µs/call'),
    cpuPerUnitByProcess: perUnitByProcess(cpu, r.calls, 1e6),
    ...(cpu.otherPercent !== null ? { otherCpu: cpu.otherPercent } : {}),
    ...(r.firstError && r.errors > 0 ? { note: `first error: ${r.firstError}` } : {}),
    ...(baseline ? { baseline } : {}),
  }
}

/** CPU seconds × `scale` / `units` for each process, by label ({} without units). */
function perUnitByProcess(cpu: CpuReading, units: number, scale: number): Record<string, number> {
  if (!(units > 0)) return {}
  return Object.fromEntries(cpu.perProcess.map((p) => [p.label, (p.seconds * scale) / units]))
}

/** "burrowd 71 · burrow 90 µs/call": CPU seconds × `scale` / `units` for each process. */
function perUnit(cpu: CpuReading, units: number, scale: number, unit: string): string {
  if (!(units > 0) || cpu.perProcess.length === 0) return ''
  const parts = cpu.perProcess.map((p) => {
    const v = (p.seconds * scale) / units
    return `${p.label} ${v >= 10 ? v.toFixed(0) : v.toFixed(1)}`
  })
  return `${parts.join(' · ')} ${unit}`
}

/** A row from a bulk-transfer cell; p50/p99 are the duration of one whole transfer. */
export function transferRow(
  name: string,
  concurrency: number,
  r: TransferResult,
  cpu: CpuReading,
  baseline?: Row,
): Row {
  return {
    name,
    concurrency,
    unit: 'MB/s',
    value: r.megabytesPerSecond,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    errors: r.errors,
    cpu: cpu.summary,
    cpuPerUnit: perUnit(cpu, r.megabytesPerSecond * cpu.wallSeconds, 1e3, 'ms/MB'),
    ...(cpu.otherPercent !== null ? { otherCpu: cpu.otherPercent } : {}),
    ...(r.firstError && r.errors > 0 ? { note: `first error: ${r.firstError}` } : {}),
    ...(baseline ? { baseline } : {}),
  }
}

/** A row for a cell that could not run. */
export function unavailableRow(
  name: string,
  concurrency: number | null,
  unit: Row['unit'],
  reason: string,
): Row {
  return { name, concurrency, unit, value: null, note: `unavailable: ${reason}` }
}

/** "0.42× · +0.25 ms p50" against the row's baseline, or '' without one. */
export function comparison(row: Row): string {
  const base = row.baseline
  if (!base || row.value === null || base.value === null || base.value === 0) return ''
  const parts = [`${(row.value / base.value).toFixed(2)}× ${shortName(base)}`]
  if (row.unit === 'calls/s' && row.p50Ms !== undefined && base.p50Ms !== undefined) {
    const added = row.p50Ms - base.p50Ms
    parts.push(`${added >= 0 ? '+' : '−'}${ms(Math.abs(added))} ms p50`)
  }
  return parts.join(', ')
}

function shortName(row: Row): string {
  const i = row.name.lastIndexOf('·')
  return i === -1 ? row.name : row.name.slice(i + 1).trim()
}

/** Format a number for the table. */
export function formatValue(value: number, unit: Row['unit']): string {
  if (unit === 'calls/s') return Math.round(value).toLocaleString('en-US')
  if (unit === 'MB/s') return value >= 100 ? value.toFixed(0) : value.toFixed(1)
  return value.toFixed(1)
}

function ms(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return ''
  return value < 10 ? value.toFixed(2) : value.toFixed(1)
}

/** The results as an aligned Markdown table. */
export function resultsTable(rows: readonly Row[]): string {
  const header = [
    'Measurement',
    'c',
    'Result',
    'p50 ms',
    'p99 ms',
    'vs baseline',
    'errors',
    'CPU % of a core',
    'CPU per call or MB',
  ]
  const body = rows.map((r) => [
    r.name,
    r.concurrency === null ? '' : String(r.concurrency),
    r.value === null ? 'unavailable' : `${formatValue(r.value, r.unit)} ${r.unit}`,
    ms(r.p50Ms),
    ms(r.p99Ms),
    comparison(r),
    r.errors === undefined ? '' : String(r.errors),
    r.cpu ?? '',
    r.cpuPerUnit ?? '',
  ])
  const right = new Set([1, 2, 3, 4, 6])
  const notes = rows
    .filter((r) => r.note)
    .map((r) => `- ${r.name}${r.concurrency === null ? '' : ` (c=${r.concurrency})`}: ${r.note}`)
  return [markdownTable(header, body, right), ...(notes.length ? ['', ...notes] : [])].join('\n')
}

/** One target of the issue and whether this run met it. */
export interface TargetCheck {
  readonly target: string
  readonly measured: string
  /** Null when the row behind it did not run. */
  readonly met: boolean | null
  /** The same measure through two relays that do no work (the floor of any tunnel here). */
  readonly floor?: string
  /** The same measure through two plain HTTP proxies (the floor of a tunnel reading HTTP). */
  readonly httpFloor?: string
  /** The same measure through two nginx proxies (that floor with HTTP read in native code). */
  readonly nativeFloor?: string
  /** The best peer tunnel's figure, e.g. "ssh -R: 8,339 calls/s". */
  readonly bestPeer?: string
  /** Replaces the plain verdict when it needs a qualifier. */
  readonly verdict?: string
}

/** The targets as an aligned Markdown table. */
export function targetsTable(checks: readonly TargetCheck[]): string {
  const body = checks.map((c) => [
    c.target,
    c.measured,
    c.floor ?? '',
    c.httpFloor ?? '',
    c.nativeFloor ?? '',
    c.bestPeer ?? '',
    c.verdict ?? (c.met === null ? 'not measured' : c.met ? 'met' : 'NOT met'),
  ])
  return markdownTable(
    [
      'Target (2-core machine)',
      'Measured (through Burrow)',
      'Floor: two relays, no work',
      'HTTP floor: two HTTP proxies, no work',
      'Native HTTP floor: two nginx proxies',
      'Best peer tunnel',
      'Verdict',
    ],
    body,
  )
}

function markdownTable(
  header: readonly string[],
  body: readonly (readonly string[])[],
  right: ReadonlySet<number> = new Set(),
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]) =>
    `| ${cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join(' | ')} |`
  const rule = `|${widths.map((w, i) => (right.has(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`
  return [line(header), rule, ...body.map(line)].join('\n')
}
