// The performance targets for a 2-core machine, checked against this run's Burrow rows.
import { formatValue, type Row, type TargetCheck } from './report.js'

/** Row ids the targets read. */
export const TARGET_ROWS = {
  smallLoaded: 'small-burrow-50',
  smallUnloaded: 'small-burrow-1',
  smallFloorLoaded: 'small-floor-50',
  smallFloorUnloaded: 'small-floor-1',
  bulk: 'bulk-burrow-1',
  bulkFloor: 'bulk-floor-1',
  bulkParallel: 'bulk-burrow-4',
  idle: 'idle-tunnel',
  idleNet: 'idle-tunnel-net',
  idleAfterGc: 'idle-tunnel-gc',
  quotaOn: 'quota-on-50',
  quotaOff: 'quota-off-50',
} as const

/** Thresholds, from the issue (docs/benchmarks.md quotes them). */
export const TARGETS = {
  callsPerSecond: 15_000,
  p99Ms: 10,
  addedP50Ms: 0.3,
  bulkMegabytesPerSecond: 500,
  kilobytesPerIdleTunnel: 15,
} as const

/** Each target with what this run measured and whether it is met. */
export function checkTargets(rows: readonly Row[]): TargetCheck[] {
  const byId = (id: string) => rows.find((r) => r.id === id && r.value !== null)
  const checks: TargetCheck[] = []

  const meetsCalls = (row: Row) =>
    row.value !== null &&
    row.value >= TARGETS.callsPerSecond &&
    (row.p99Ms ?? Infinity) < TARGETS.p99Ms
  const calls = (row: Row | undefined) =>
    row?.value
      ? `${formatValue(row.value, 'calls/s')} calls/s, p99 ${row.p99Ms?.toFixed(2)} ms`
      : ''
  const loaded = byId(TARGET_ROWS.smallLoaded)
  const loadedFloor = byId(TARGET_ROWS.smallFloorLoaded)
  checks.push(
    withFloor(
      {
        target: `≥${TARGETS.callsPerSecond.toLocaleString('en-US')} small calls/s at c=50, p99 < ${TARGETS.p99Ms} ms`,
        measured: calls(loaded) || 'n/a',
        met: loaded?.value ? meetsCalls(loaded) : null,
      },
      loadedFloor && { text: calls(loadedFloor), met: meetsCalls(loadedFloor) },
    ),
  )

  const addedP50 = (row: Row | undefined) =>
    row?.p50Ms !== undefined && row.baseline?.p50Ms !== undefined
      ? row.p50Ms - row.baseline.p50Ms
      : undefined
  const unloaded = byId(TARGET_ROWS.smallUnloaded)
  const added = addedP50(unloaded)
  const floorAdded = addedP50(byId(TARGET_ROWS.smallFloorUnloaded))
  checks.push(
    withFloor(
      {
        target: `≤${TARGETS.addedP50Ms} ms added p50 unloaded (c=1)`,
        measured:
          added !== undefined
            ? `+${added.toFixed(2)} ms (p50 ${unloaded?.p50Ms?.toFixed(3)} vs ${unloaded?.baseline?.p50Ms?.toFixed(3)} direct)`
            : 'n/a',
        met: added === undefined ? null : added <= TARGETS.addedP50Ms,
      },
      floorAdded !== undefined && {
        text: `+${floorAdded.toFixed(2)} ms`,
        met: floorAdded <= TARGETS.addedP50Ms,
      },
    ),
  )

  const bulk = byId(TARGET_ROWS.bulk)
  const bulkFloor = byId(TARGET_ROWS.bulkFloor)
  const parallel = byId(TARGET_ROWS.bulkParallel)
  checks.push(
    withFloor(
      {
        target: `≥${TARGETS.bulkMegabytesPerSecond} MB/s per bulk stream (10 MiB, c=1)`,
        measured: bulk?.value
          ? `${formatValue(bulk.value, 'MB/s')} MB/s` +
            (parallel?.value ? ` (c=4 total: ${formatValue(parallel.value, 'MB/s')} MB/s)` : '')
          : 'n/a',
        met: bulk?.value ? bulk.value >= TARGETS.bulkMegabytesPerSecond : null,
      },
      bulkFloor?.value && {
        text: `${formatValue(bulkFloor.value, 'MB/s')} MB/s`,
        met: bulkFloor.value >= TARGETS.bulkMegabytesPerSecond,
      },
    ),
  )

  const idle = byId(TARGET_ROWS.idle)
  const idleNet = byId(TARGET_ROWS.idleNet)
  const idleGc = byId(TARGET_ROWS.idleAfterGc)
  const limit = TARGETS.kilobytesPerIdleTunnel
  const idleMet = idle?.value != null ? idle.value <= limit : null
  const netMet = idleNet?.value != null ? idleNet.value <= limit : null
  const gcMet = idleGc?.value != null ? idleGc.value <= limit : null
  const others = [
    idleNet?.value != null ? `${idleNet.value.toFixed(1)} KB less young generation` : '',
    idleGc?.value != null ? `${idleGc.value.toFixed(1)} KB after a full GC` : '',
  ].filter(Boolean)
  checks.push({
    target: `≤${limit} KB broker RSS per idle tunnel`,
    measured:
      idle?.value != null
        ? `${idle.value.toFixed(1)} KB` + (others.length ? ` (${others.join('; ')})` : '')
        : 'n/a',
    met: idleMet,
    ...(idleMet === false && (netMet === true || gcMet === true)
      ? {
          verdict:
            netMet === true
              ? 'NOT met as measured; met less young generation and after GC'
              : 'NOT met as measured; met after GC',
        }
      : {}),
  })
  const on = byId(TARGET_ROWS.quotaOn)
  const off = byId(TARGET_ROWS.quotaOff)
  checks.push({
    target: 'small-call throughput with quota enforcement on vs off (ratio)',
    measured:
      on?.value && off?.value
        ? `${(on.value / off.value).toFixed(2)}× (${formatValue(on.value, 'calls/s')} vs ${formatValue(off.value, 'calls/s')} calls/s, c=50)`
        : 'n/a',
    met: null,
    ...(on?.value && off?.value ? { verdict: 'for information (no target)' } : {}),
  })
  return checks
}

/**
 * `check` with the floor's figure, and when neither Burrow nor the floor meets the target, a
 * verdict that says so: no tunnel through two more processes could meet it on this machine.
 */
function withFloor(
  check: TargetCheck,
  floor: { text: string; met: boolean } | undefined | false | null | 0,
): TargetCheck {
  if (!floor) return check
  const out: TargetCheck = { ...check, floor: floor.text }
  if (check.met === false && !floor.met) {
    return { ...out, verdict: 'NOT met; out of reach here (the floor misses it too)' }
  }
  return out
}
