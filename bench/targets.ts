// The performance targets for a 2-core machine, checked against this run's Burrow rows.
// The speed targets are relative: to the floor (two TCP relays that do no work, measured in the
// same run) and to the peer tunnels measured in the same run, so they mean the same on any machine.
// Beside the floor, the HTTP floor (two plain HTTP proxies in Node, measured in the same run) shows
// what reading HTTP at both ends costs before any of Burrow's work, and two nginx proxies the same
// in native code; the verdicts use neither.
// With several rounds, every ratio is taken within each round and the median read (round-ratio.ts).
import { formatValue, type Row, type TargetCheck } from './report.js'
import { aheadOfPeers, closestPeer, closestPeerColumn, label } from './closest-peer.js'
import { pairShare } from './pair-share.js'
import { RunRows, formatRatio, roundsNote, type RoundRatio } from './round-ratio.js'

/** Row ids the targets read; peer rows are `small-peer-<peer>-<c>` and `bulk-peer-<peer>-1`. */
export const TARGET_ROWS = {
  smallLoaded: 'small-burrow-50',
  smallUnloaded: 'small-burrow-1',
  smallFloorLoaded: 'small-floor-50',
  smallFloorUnloaded: 'small-floor-1',
  smallDirectLoaded: 'small-direct-50',
  smallDirectUnloaded: 'small-direct-1',
  smallProxiesLoaded: 'small-proxies-50',
  smallProxiesUnloaded: 'small-proxies-1',
  bulkProxies: 'bulk-proxies-1',
  smallNginxLoaded: 'small-nginx-50',
  smallNginxUnloaded: 'small-nginx-1',
  bulkNginx: 'bulk-nginx-1',
  sdk: 'sdk-burrow-50',
  sdkDirect: 'sdk-direct-50',
  bulk: 'bulk-burrow-1',
  bulkFloor: 'bulk-floor-1',
  bulkParallel: 'bulk-burrow-4',
  idle: 'idle-tunnel',
  idleConnected: 'idle-tunnel-connected',
  idleAfterGc: 'idle-tunnel-gc',
  policyNone: 'policy-none-50',
  policyRealistic: 'policy-realistic-50',
  quotaOn: 'quota-on-50',
  quotaOff: 'quota-off-50',
  clusterHolding: 'cluster-0',
  clusterAcross: 'cluster-1',
} as const

/** Thresholds, from the issue (docs/benchmarks.md quotes them). */
export const TARGETS = {
  /** Added p50 at c=1 at most this many ms … */
  addedP50Ms: 0.5,
  /** … and at most this many times the floor's added p50. */
  addedP50FloorFactor: 3,
  /** Small calls/s at c=50 at least this share of the floor's (and ahead of every peer). */
  loadedFloorShare: 0.7,
  /** 10 MiB one stream at least this share of the floor's MB/s (and ahead of every peer). */
  bulkFloorShare: 0.8,
  kilobytesPerIdleTunnel: 15,
  /** burrowd's CPU per call at c=1 at most this many times its figure at c=50. */
  unloadedCpuFactor: 2,
  /** A real SDK server over HTTP through the tunnel at least this share of direct, at c=50. */
  sdkDirectShare: 0.9,
  /** Small calls at c=50 with a realistic governance policy at least this share of none. */
  policyShare: 0.8,
} as const

/** One part of a target: what it says and whether it held (null: not measured). */
interface Condition {
  readonly text: string
  readonly met: boolean | null
}

/** "met", "NOT met: <the parts that failed>", or "not measured: <what is missing>". */
function verdictOf(conditions: readonly Condition[]): { met: boolean | null; verdict: string } {
  const failed = conditions.filter((c) => c.met === false)
  if (failed.length > 0) {
    return { met: false, verdict: `NOT met: ${failed.map((c) => c.text).join('; ')}` }
  }
  const unknown = conditions.filter((c) => c.met === null)
  if (unknown.length > 0) {
    return { met: null, verdict: `not measured: ${unknown.map((c) => c.text).join('; ')}` }
  }
  return { met: true, verdict: 'met' }
}

/** Added p50 of a call row over its baseline (direct), in ms. */
function addedP50(row: Row | undefined): number | undefined {
  return row?.p50Ms !== undefined && row.baseline?.p50Ms !== undefined
    ? row.p50Ms - row.baseline.p50Ms
    : undefined
}

/**
 * Each target with what this run measured and whether it is met. `rows` are the median rows;
 * `rounds`, when the sections ran several times, each round's rows, in which the ratios are read.
 */
export function checkTargets(
  rows: readonly Row[],
  rounds: readonly (readonly Row[])[] = [],
): TargetCheck[] {
  const run = new RunRows(rows, rounds)
  const byId = (id: string) => run.byId(id)
  const peers = (pattern: RegExp) => rows.filter((r) => pattern.test(r.id ?? '') && r.value)
  const checks: TargetCheck[] = []

  // Added p50, unloaded.
  const unloaded = byId(TARGET_ROWS.smallUnloaded)
  const added = addedP50(unloaded)
  const floorAdded = addedP50(byId(TARGET_ROWS.smallFloorUnloaded))
  const factor = run.ratio((round) => {
    const a = addedP50(round(TARGET_ROWS.smallUnloaded))
    const f = addedP50(round(TARGET_ROWS.smallFloorUnloaded))
    if (a === undefined || f === undefined) return null
    // A floor that added nothing: Burrow is within any factor of it only if it added nothing too.
    return f > 0 ? a / f : a <= 0 ? 0 : Infinity
  })
  const peerAdded = peers(/^small-peer-.+-1$/)
    .map((row) => ({ row, added: addedP50(row) }))
    .filter((p): p is { row: Row; added: number } => p.added !== undefined)
    .sort((a, b) => a.added - b.added)
  const p50 = verdictOf([
    added === undefined
      ? { text: 'Burrow not measured', met: null }
      : {
          text: `+${added.toFixed(2)} ms > ${TARGETS.addedP50Ms} ms`,
          met: added <= TARGETS.addedP50Ms,
        },
    added === undefined || floorAdded === undefined
      ? { text: 'floor not measured', met: null }
      : factor === null
        ? { text: 'floor not measured', met: null }
        : {
            text: `${formatRatio(factor.value, 1)}× the floor's > ${TARGETS.addedP50FloorFactor}×`,
            met: factor.value <= TARGETS.addedP50FloorFactor,
          },
  ])
  checks.push({
    target: `≤${TARGETS.addedP50Ms} ms added p50 unloaded (c=1) and ≤${TARGETS.addedP50FloorFactor}× the floor's`,
    measured:
      added !== undefined
        ? `+${added.toFixed(2)} ms (p50 ${unloaded?.p50Ms?.toFixed(3)} vs ${unloaded?.baseline?.p50Ms?.toFixed(3)} direct)` +
          (factor !== null
            ? `, ${formatRatio(factor.value, 1)}× the floor's${roundsNote(factor, 1)}`
            : '')
        : 'n/a',
    ...(floorAdded !== undefined ? { floor: `+${floorAdded.toFixed(2)} ms` } : {}),
    ...floorColumn('httpFloor', byId(TARGET_ROWS.smallProxiesUnloaded), (row) => {
      const proxiesAdded = addedP50(row)
      return proxiesAdded === undefined ? null : `+${proxiesAdded.toFixed(2)} ms`
    }),
    ...floorColumn('nativeFloor', byId(TARGET_ROWS.smallNginxUnloaded), (row) => {
      const nginxAdded = addedP50(row)
      return nginxAdded === undefined ? null : `+${nginxAdded.toFixed(2)} ms`
    }),
    ...(peerAdded[0]
      ? { bestPeer: `${label(peerAdded[0].row)}: +${peerAdded[0].added.toFixed(2)} ms` }
      : {}),
    ...p50,
  })

  // Small calls under load.
  const calls = (row: Row) =>
    `${formatValue(row.value!, 'calls/s')} calls/s, p99 ${row.p99Ms?.toFixed(1)} ms`
  const loaded = byId(TARGET_ROWS.smallLoaded)
  const loadedFloor = byId(TARGET_ROWS.smallFloorLoaded)
  const loadedPeers = peers(/^small-peer-.+-50$/)
  const loadedShare = run.share(TARGET_ROWS.smallLoaded, TARGET_ROWS.smallFloorLoaded)
  const loadedClosest = closestPeer(run, TARGET_ROWS.smallLoaded, loadedPeers)
  const callsOf = (r: Row) => `${formatValue(r.value!, 'calls/s')} calls/s`
  checks.push({
    target: `Small calls at c=50 ≥${TARGETS.loadedFloorShare}× the floor's and ahead of every peer`,
    measured: loaded?.value ? `${calls(loaded)}${shareText(loadedShare)}` : 'n/a',
    ...(loadedFloor?.value ? { floor: calls(loadedFloor) } : {}),
    ...floorColumn('httpFloor', byId(TARGET_ROWS.smallProxiesLoaded), (row) =>
      row.value
        ? `${calls(row)}${shareText(run.share(TARGET_ROWS.smallProxiesLoaded, TARGET_ROWS.smallFloorLoaded))}`
        : null,
    ),
    ...floorColumn('nativeFloor', byId(TARGET_ROWS.smallNginxLoaded), (row) =>
      row.value
        ? `${calls(row)}${shareText(run.share(TARGET_ROWS.smallNginxLoaded, TARGET_ROWS.smallFloorLoaded))}`
        : null,
    ),
    ...closestPeerColumn(loadedClosest, callsOf),
    ...verdictOf([
      loadedShare === null
        ? { text: 'Burrow or floor not measured', met: null }
        : {
            text: `${loadedShare.value.toFixed(2)}× the floor < ${TARGETS.loadedFloorShare}×`,
            met: loadedShare.value >= TARGETS.loadedFloorShare,
          },
      aheadOfPeers(loadedPeers, loadedClosest, callsOf),
    ]),
  })

  // One bulk stream.
  const mb = (row: Row) => `${formatValue(row.value!, 'MB/s')} MB/s`
  const bulk = byId(TARGET_ROWS.bulk)
  const bulkFloor = byId(TARGET_ROWS.bulkFloor)
  const parallel = byId(TARGET_ROWS.bulkParallel)
  const bulkPeers = peers(/^bulk-peer-.+-1$/)
  const bulkShare = run.share(TARGET_ROWS.bulk, TARGET_ROWS.bulkFloor)
  const bulkClosest = closestPeer(run, TARGET_ROWS.bulk, bulkPeers)
  checks.push({
    target: `10 MiB one stream (c=1) ≥${TARGETS.bulkFloorShare}× the floor's and ahead of every peer`,
    measured: bulk?.value
      ? mb(bulk) + shareText(bulkShare) + (parallel?.value ? `; c=4 total ${mb(parallel)}` : '')
      : 'n/a',
    ...(bulkFloor?.value ? { floor: mb(bulkFloor) } : {}),
    ...floorColumn('httpFloor', byId(TARGET_ROWS.bulkProxies), (row) =>
      row.value
        ? `${mb(row)}${shareText(run.share(TARGET_ROWS.bulkProxies, TARGET_ROWS.bulkFloor))}`
        : null,
    ),
    ...floorColumn('nativeFloor', byId(TARGET_ROWS.bulkNginx), (row) =>
      row.value
        ? `${mb(row)}${shareText(run.share(TARGET_ROWS.bulkNginx, TARGET_ROWS.bulkFloor))}`
        : null,
    ),
    ...closestPeerColumn(bulkClosest, mb),
    ...verdictOf([
      bulkShare === null
        ? { text: 'Burrow or floor not measured', met: null }
        : {
            text: `${bulkShare.value.toFixed(2)}× the floor < ${TARGETS.bulkFloorShare}×`,
            met: bulkShare.value >= TARGETS.bulkFloorShare,
          },
      aheadOfPeers(bulkPeers, bulkClosest, mb),
    ]),
  })

  checks.push(cpuAtOneAgainstFifty(run))
  checks.push(sdkAgainstDirect(run))

  const idle = byId(TARGET_ROWS.idle)
  const idleConnected = byId(TARGET_ROWS.idleConnected)
  const idleGc = byId(TARGET_ROWS.idleAfterGc)
  const kbLimit = TARGETS.kilobytesPerIdleTunnel
  const idleMet = idle?.value != null ? idle.value <= kbLimit : null
  const gcMet = idleGc?.value != null ? idleGc.value <= kbLimit : null
  const others = [
    idleConnected?.value != null
      ? `${idleConnected.value.toFixed(1)} KB just after connecting`
      : '',
    idleGc?.value != null ? `${idleGc.value.toFixed(1)} KB after a full GC` : '',
  ].filter(Boolean)
  checks.push({
    target: `≤${kbLimit} KB broker RSS per idle tunnel`,
    measured:
      idle?.value != null
        ? `${idle.value.toFixed(1)} KB idle` + (others.length ? ` (${others.join('; ')})` : '')
        : 'n/a',
    met: idleMet,
    ...(idleMet === false && gcMet === true
      ? { verdict: 'NOT met as measured; met after GC' }
      : {}),
  })
  checks.push(
    pairShare(
      run,
      'small-call throughput with quota enforcement on vs off (ratio)',
      TARGET_ROWS.quotaOn,
      TARGET_ROWS.quotaOff,
      null,
    ),
    pairShare(
      run,
      'small calls across nodes vs on the holding node (ratio)',
      TARGET_ROWS.clusterAcross,
      TARGET_ROWS.clusterHolding,
      null,
    ),
    pairShare(
      run,
      `small calls with a realistic governance policy vs none ≥ ${TARGETS.policyShare}× (ratio)`,
      TARGET_ROWS.policyRealistic,
      TARGET_ROWS.policyNone,
      TARGETS.policyShare,
    ),
  )
  return checks
}

/**
 * CPU per call of process `label` in row `one` (c=1) over its figure in row `fifty` (c=50), within
 * each round; null when not measured.
 */
function cpuRatio(run: RunRows, one: string, fifty: string, label: string): RoundRatio | null {
  return run.ratio((byId) => {
    const a = byId(one)?.cpuPerUnitByProcess?.[label]
    const b = byId(fifty)?.cpuPerUnitByProcess?.[label]
    return a !== undefined && b !== undefined && b > 0 ? a / b : null
  })
}

/**
 * burrowd's CPU per call when calls come one at a time against fifty at a time. Beside it, the
 * same ratio of the floor's relays and of the direct server: what a process that does no work, or
 * only Node's HTTP, pays per wake-up on this machine.
 */
function cpuAtOneAgainstFifty(run: RunRows): TargetCheck {
  const ratio = cpuRatio(run, TARGET_ROWS.smallUnloaded, TARGET_ROWS.smallLoaded, 'burrowd')
  // The two figures of the round whose ratio is the median.
  const one = run.rowOf(TARGET_ROWS.smallUnloaded, ratio)
  const fifty = run.rowOf(TARGET_ROWS.smallLoaded, ratio)
  const relays = cpuRatio(
    run,
    TARGET_ROWS.smallFloorUnloaded,
    TARGET_ROWS.smallFloorLoaded,
    'relays',
  )
  const server = cpuRatio(
    run,
    TARGET_ROWS.smallDirectUnloaded,
    TARGET_ROWS.smallDirectLoaded,
    'server',
  )
  const proxies = cpuRatio(
    run,
    TARGET_ROWS.smallProxiesUnloaded,
    TARGET_ROWS.smallProxiesLoaded,
    'proxies',
  )
  const nginx = cpuRatio(run, TARGET_ROWS.smallNginxUnloaded, TARGET_ROWS.smallNginxLoaded, 'nginx')
  const us = (row: Row | undefined) => row?.cpuPerUnitByProcess?.burrowd?.toFixed(0)
  const limit = TARGETS.unloadedCpuFactor
  const context = [
    relays !== null ? `relays ${relays.value.toFixed(1)}×` : '',
    server !== null ? `direct server ${server.value.toFixed(1)}×` : '',
  ].filter(Boolean)
  return {
    target: `burrowd CPU per call at c=1 ≤${limit}× its c=50 figure`,
    measured:
      ratio === null
        ? 'n/a'
        : `${ratio.value.toFixed(1)}× (${us(one)} vs ${us(fifty)} µs per call${roundsNote(ratio, 1)})`,
    ...(context.length > 0 ? { floor: context.join('; ') } : {}),
    ...(proxies !== null ? { httpFloor: `proxies ${proxies.value.toFixed(1)}×` } : {}),
    ...(nginx !== null ? { nativeFloor: `nginx ${nginx.value.toFixed(1)}×` } : {}),
    ...verdictOf([
      ratio === null
        ? { text: 'Burrow not measured at c=1 and c=50', met: null }
        : { text: `${ratio.value.toFixed(1)}× > ${limit}×`, met: ratio.value <= limit },
    ]),
  }
}

/** A real SDK server over HTTP through the tunnel against the same server called directly. */
function sdkAgainstDirect(run: RunRows): TargetCheck {
  const share = run.share(TARGET_ROWS.sdk, TARGET_ROWS.sdkDirect)
  // The two figures of the round whose ratio is the median.
  const burrow = run.rowOf(TARGET_ROWS.sdk, share)
  const direct = run.rowOf(TARGET_ROWS.sdkDirect, share)
  const calls = (row: Row) => `${formatValue(row.value!, 'calls/s')} calls/s`
  return {
    target: `SDK server over HTTP (SSE answers) at c=50 ≥${TARGETS.sdkDirectShare}× direct`,
    measured:
      share === null || !burrow || !direct
        ? 'n/a'
        : `${share.value.toFixed(2)}× (${calls(burrow)} vs ${calls(direct)}${roundsNote(share)})`,
    ...verdictOf([
      share === null
        ? { text: 'Burrow or direct not measured', met: null }
        : {
            text: `${share.value.toFixed(2)}× direct < ${TARGETS.sdkDirectShare}×`,
            met: share.value >= TARGETS.sdkDirectShare,
          },
    ]),
  }
}

/** A floor's column (`httpFloor`, `nativeFloor`): what `show` makes of its row, or nothing. */
function floorColumn<K extends 'httpFloor' | 'nativeFloor'>(
  column: K,
  row: Row | undefined,
  show: (row: Row) => string | null,
): Partial<Record<K, string>> {
  const text = row ? show(row) : null
  return text !== null ? ({ [column]: text } as Partial<Record<K, string>>) : {}
}

/** " (0.52× the floor; rounds 0.50 · 0.52 · 0.55)", or "" when it was not measured. */
function shareText(share: RoundRatio | null): string {
  return share === null ? '' : ` (${share.value.toFixed(2)}× the floor${roundsNote(share)})`
}
