import assert from 'node:assert/strict'
import { test } from 'node:test'
import { medianRows } from '../../bench/median-rows.js'
import type { Row } from '../../bench/report.js'
import { TARGET_ROWS, checkTargets } from '../../bench/targets.js'

const row = (id: string, value: number, extra: Partial<Row> = {}): Row => ({
  id,
  name: `cell · ${id}`,
  concurrency: 50,
  unit: 'calls/s',
  value,
  ...extra,
})

const target = (checks: ReturnType<typeof checkTargets>, starts: string) =>
  checks.find((c) => c.target.startsWith(starts))!

/** Three rounds of the SDK section of one run (2026-11-27, 13:19). */
const SDK_ROUNDS = [
  [row(TARGET_ROWS.sdk, 3041), row(TARGET_ROWS.sdkDirect, 3253)],
  [row(TARGET_ROWS.sdk, 2802), row(TARGET_ROWS.sdkDirect, 3198)],
  [row(TARGET_ROWS.sdk, 2985), row(TARGET_ROWS.sdkDirect, 3356)],
]

test('with rounds, a target reads the ratio within each round, not the median rows against each other', () => {
  const rows = medianRows(SDK_ROUNDS)
  const paired = target(checkTargets(rows, SDK_ROUNDS), 'SDK server')
  assert.equal(paired.met, false)
  // Beside the ratio, the two figures of the round it came from (the third).
  assert.match(
    paired.measured,
    /^0\.89× \(2,985 calls\/s vs 3,356 calls\/s; rounds 0\.93 · 0\.88 · 0\.89\)$/,
  )
  assert.match(paired.verdict!, /0\.89× direct < 0\.9×/)
  // Read from the median rows alone, the same run would pass: 2,985 of one round over 3,253 of another.
  const unpaired = target(checkTargets(rows), 'SDK server')
  assert.equal(unpaired.met, true)
  assert.match(unpaired.measured, /^0\.92× /)
})

test('ahead of a peer is read round by round, not from the median rows', () => {
  const rounds = [
    [
      row(TARGET_ROWS.smallLoaded, 130),
      row(TARGET_ROWS.smallFloorLoaded, 200),
      row('small-peer-ssh-50', 100, { name: 'small call, HTTP · ssh -R' }),
    ],
    [
      row(TARGET_ROWS.smallLoaded, 100),
      row(TARGET_ROWS.smallFloorLoaded, 200),
      row('small-peer-ssh-50', 110, { name: 'small call, HTTP · ssh -R' }),
    ],
    [
      row(TARGET_ROWS.smallLoaded, 120),
      row(TARGET_ROWS.smallFloorLoaded, 200),
      row('small-peer-ssh-50', 125, { name: 'small call, HTTP · ssh -R' }),
    ],
  ]
  const rows = medianRows(rounds)
  // The median rows say 120 against 110, but Burrow was behind in two rounds of three.
  const check = target(checkTargets(rows, rounds), 'Small calls at c=50')
  assert.equal(check.met, false)
  assert.match(
    check.verdict!,
    /behind ssh -R \(110 calls\/s; Burrow 0\.96× it; rounds 1\.30 · 0\.91 · 0\.96\)/,
  )
  assert.match(check.measured, /\(0\.60× the floor; rounds 0\.65 · 0\.50 · 0\.60\)/)
  assert.equal(target(checkTargets(rows), 'Small calls at c=50').verdict?.includes('behind'), false)
})

test("burrowd's CPU at c=1 against c=50 is read within each round, and shown with that round's figures", () => {
  const cpu = (burrowd: number) => ({ cpuPerUnitByProcess: { burrowd } })
  const rounds = [
    [row(TARGET_ROWS.smallUnloaded, 10, cpu(150)), row(TARGET_ROWS.smallLoaded, 95, cpu(50))],
    [row(TARGET_ROWS.smallUnloaded, 12, cpu(100)), row(TARGET_ROWS.smallLoaded, 100, cpu(60))],
    [row(TARGET_ROWS.smallUnloaded, 11, cpu(120)), row(TARGET_ROWS.smallLoaded, 90, cpu(55))],
  ]
  const rows = medianRows(rounds)
  // The median rows are of the third round (c=1) and the first (c=50): 120 over 50 would be 2.4.
  const check = target(checkTargets(rows, rounds), 'burrowd CPU')
  assert.equal(check.met, false)
  assert.equal(check.measured, '2.2× (120 vs 55 µs per call; rounds 3.0 · 1.7 · 2.2)')
  assert.match(target(checkTargets(rows), 'burrowd CPU').measured, /^2\.4× \(120 vs 50 µs/)
})

test('Burrow must be ahead of every peer, each read round by round, not only of the fastest', () => {
  const peer = (name: string, value: number) =>
    row(`small-peer-${name}-50`, value, { name: `small call, HTTP · ${name}` })
  const rounds = [
    [row(TARGET_ROWS.smallLoaded, 100), peer('ssh -R', 110), peer('pipenet', 105)],
    [row(TARGET_ROWS.smallLoaded, 130), peer('ssh -R', 120), peer('pipenet', 119)],
    [row(TARGET_ROWS.smallLoaded, 130), peer('ssh -R', 120), peer('pipenet', 135)],
  ]
  // ssh -R has the higher median (120 against 119), and Burrow is ahead of it in two rounds;
  // it is behind pipenet in two.
  const check = target(checkTargets(medianRows(rounds), rounds), 'Small calls at c=50')
  assert.equal(check.met, false)
  assert.match(
    check.verdict!,
    /behind pipenet \(119 calls\/s; Burrow 0\.96× it; rounds 0\.95 · 1\.09 · 0\.96\)/,
  )
  assert.equal(check.bestPeer, 'pipenet (119 calls/s; Burrow 0.96× it; rounds 0.95 · 1.09 · 0.96)')
})

test("a round whose floor added no latency counts against Burrow's factor when Burrow added some", () => {
  const p50 = (p50Ms: number, direct: number) => ({
    p50Ms,
    baseline: row(TARGET_ROWS.smallDirectUnloaded, 1, { p50Ms: direct }),
  })
  const round = (burrow: number, floor: number) => [
    row(TARGET_ROWS.smallUnloaded, 10, p50(0.1 + burrow, 0.1)),
    row(TARGET_ROWS.smallFloorUnloaded, 20, p50(0.1 + floor, 0.1)),
  ]
  const rounds = [round(0.4, 0), round(0.2, 0.1), round(0.35, 0.05)]
  const check = target(checkTargets(medianRows(rounds), rounds), '≤0.5 ms added p50')
  assert.equal(check.met, false)
  assert.match(check.measured, /7\.0× the floor's; rounds ∞ · 2\.0 · 7\.0$/)
})

test('the nginx floor is shown beside each target and never decides a verdict', () => {
  const cpu = (us: number, label: string) => ({ cpuPerUnitByProcess: { [label]: us } })
  const rows = [
    row(TARGET_ROWS.smallLoaded, 100, cpu(50, 'burrowd')),
    row(TARGET_ROWS.smallUnloaded, 30, { concurrency: 1, ...cpu(150, 'burrowd') }),
    row(TARGET_ROWS.smallFloorLoaded, 200),
    row(TARGET_ROWS.smallNginxLoaded, 210, { p99Ms: 3.8, ...cpu(28, 'nginx') }),
    row(TARGET_ROWS.smallNginxUnloaded, 50, { concurrency: 1, ...cpu(98, 'nginx') }),
    row(TARGET_ROWS.bulk, 500, { unit: 'MB/s', concurrency: 1 }),
    row(TARGET_ROWS.bulkFloor, 800, { unit: 'MB/s', concurrency: 1 }),
    row(TARGET_ROWS.bulkNginx, 700, { unit: 'MB/s', concurrency: 1 }),
  ]
  const checks = checkTargets(rows)
  const loaded = target(checks, 'Small calls at c=50')
  assert.equal(loaded.nativeFloor, '210 calls/s, p99 3.8 ms (1.05× the floor)')
  assert.equal(loaded.met, false)
  assert.match(target(checks, '10 MiB one stream').nativeFloor!, /^700 MB\/s \(0\.88× the floor\)$/)
  assert.equal(target(checks, 'burrowd CPU per call').nativeFloor, 'nginx 3.5×')
  // A run without nginx leaves the column empty.
  const without = checkTargets(rows.filter((r) => !r.id!.includes('nginx')))
  assert.equal(target(without, 'Small calls at c=50').nativeFloor, undefined)
})

test('the governance policy, quotas and several nodes are read within each round too', () => {
  // The full run of 2026-11-28, 15:20 read 0.78× from one round; the same cells run alone three
  // times gave 1.01, 0.98 and 1.30.
  /** One round: calls/s with no policy, with the realistic one, quotas off, quotas on. */
  const round = (none: number, realistic: number, off: number, on: number) => [
    row(TARGET_ROWS.policyNone, none),
    row(TARGET_ROWS.policyRealistic, realistic),
    row(TARGET_ROWS.quotaOff, off),
    row(TARGET_ROWS.quotaOn, on),
  ]
  const rounds = [
    round(5492, 5556, 5000, 5100),
    round(4825, 4732, 4000, 3800),
    round(4343, 5667, 6000, 6600),
  ]
  const rows = medianRows(rounds)
  const checks = checkTargets(rows, rounds)
  const policy = target(checks, 'small calls with a realistic governance policy')
  assert.equal(policy.met, true)
  // The median ratio (the first round's), beside that round's figures.
  assert.equal(policy.measured, '1.01× (5,556 vs 5,492 calls/s, c=50; rounds 1.01 · 0.98 · 1.30)')
  const quota = target(checks, 'small-call throughput with quota enforcement')
  assert.equal(quota.met, null)
  assert.equal(quota.verdict, 'for information (no target)')
  assert.equal(quota.measured, '1.02× (5,100 vs 5,000 calls/s, c=50; rounds 1.02 · 0.95 · 1.10)')
  // A policy far costlier than none in every round fails the target.
  const slow = rounds.map((r) =>
    r.map((x) => (x.id === TARGET_ROWS.policyRealistic ? { ...x, value: x.value! * 0.7 } : x)),
  )
  assert.equal(
    target(checkTargets(medianRows(slow), slow), 'small calls with a realistic').met,
    false,
  )
  // Not measured: no verdict either way.
  const none = target(checkTargets([]), 'small calls across nodes')
  assert.deepEqual([none.measured, none.met], ['n/a', null])
})
