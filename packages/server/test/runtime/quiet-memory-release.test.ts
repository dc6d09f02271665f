import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createLogger } from '@burrow/protocol'
import {
  BUSY_SHARE,
  MIN_GROWTH_BYTES,
  memoryReducingCollection,
  processProbe,
  QuietMemoryRelease,
  type MemoryProbe,
} from '../../src/runtime/quiet-memory-release.js'

const MB = 1024 * 1024

/** A process whose busy share, heap and RSS the test sets, and whose releases it counts. */
class FakeProcess implements MemoryProbe {
  busy = 0
  heap = 40 * MB
  resident = 100 * MB
  releases = 0
  /** Heap and RSS after a release. */
  heapAfter = 20 * MB
  fail: Error | null = null
  busyShare(): number {
    return this.busy
  }
  heapBytes(): number {
    return this.heap
  }
  rss(): number {
    return this.resident
  }
  async release(): Promise<void> {
    await Promise.resolve()
    if (this.fail) throw this.fail
    this.releases += 1
    this.resident -= this.heap - this.heapAfter
    this.heap = this.heapAfter
  }
}

describe('QuietMemoryRelease', () => {
  let release: QuietMemoryRelease | null = null
  afterEach(() => release?.stop())

  function start(quietMs = 60_000) {
    const proc = new FakeProcess()
    const lines: string[] = []
    let now = 1_000_000
    proc.heap = 20 * MB
    release = new QuietMemoryRelease({
      quietMs,
      checkMs: 3_600_000,
      probe: proc,
      now: () => now,
      log: createLogger('info', (line) => lines.push(line)),
    })
    return {
      proc,
      lines,
      release,
      advance: async (ms: number) => {
        now += ms
        await release!.check()
      },
    }
  }

  it('gives memory back once the process was quiet for the whole wait', async () => {
    const { proc, lines, release, advance } = start()
    await advance(30_000)
    assert.equal(proc.releases, 0, 'quiet, but not for long enough')
    await advance(30_000)
    assert.equal(proc.releases, 1, 'the first release needs no growth: start-up leaves garbage')
    assert.equal(release.releases, 1)
    assert.match(
      lines.join(''),
      /^INFO {2}memory: quiet for 60 s, gave back 0\.0 MB \(RSS 100\.0 MB/,
    )
  })

  it('releases once per quiet spell, and again only after the process was busy', async () => {
    const { proc, advance } = start()
    proc.heap = 40 * MB
    await advance(60_000)
    assert.equal(proc.releases, 1)
    proc.heap = 40 * MB
    await advance(60_000)
    await advance(60_000)
    assert.equal(proc.releases, 1, 'still the same quiet spell')
    proc.busy = 0.5
    await advance(1_000)
    proc.busy = 0
    await advance(30_000)
    assert.equal(proc.releases, 1, 'the new spell has not lasted the wait yet')
    await advance(31_000)
    assert.equal(proc.releases, 2)
  })

  it('counts an event loop busy at the threshold as busy', async () => {
    const { proc, advance } = start()
    proc.heap = 40 * MB
    await advance(50_000)
    proc.busy = BUSY_SHARE
    await advance(10_000)
    proc.busy = BUSY_SHARE * 0.9
    await advance(59_000)
    assert.equal(proc.releases, 0)
    await advance(1_000)
    assert.equal(proc.releases, 1)
  })

  /** A fake whose first release already ran, leaving a 20 MB heap. */
  async function afterFirstRelease() {
    const started = start()
    started.proc.heap = 40 * MB
    await started.advance(60_000)
    assert.equal(started.proc.releases, 1)
    started.proc.busy = 1
    await started.advance(1_000)
    started.proc.busy = 0
    return started
  }

  it('later leaves a heap that grew less than the minimum alone', async () => {
    const { proc, advance } = await afterFirstRelease()
    proc.heap = 20 * MB + MIN_GROWTH_BYTES - 1
    await advance(120_000)
    assert.equal(proc.releases, 1)
    proc.heap = 20 * MB + MIN_GROWTH_BYTES
    proc.busy = 1
    await advance(1_000)
    proc.busy = 0
    await advance(60_000)
    assert.equal(proc.releases, 2)
  })

  it('remembers a peak the heap has already fallen from (a young generation V8 shrank)', async () => {
    const { proc, advance } = await afterFirstRelease()
    proc.heap = 50 * MB
    await advance(10_000)
    proc.heap = 24 * MB
    await advance(50_000)
    assert.equal(proc.releases, 2)
  })

  it('measures growth from the heap a release left', async () => {
    const { proc, advance } = start()
    proc.heap = 60 * MB
    proc.heapAfter = 30 * MB
    await advance(60_000)
    assert.equal(proc.releases, 1)
    proc.busy = 1
    await advance(1_000)
    proc.busy = 0
    proc.heap = 30 * MB + MIN_GROWTH_BYTES - 1
    await advance(120_000)
    assert.equal(proc.releases, 1, 'grew less than the minimum since the release')
  })

  it('logs a failed release as a warning and does not retry it in the same spell', async () => {
    const { proc, lines, advance } = start()
    proc.heap = 40 * MB
    proc.fail = new Error('inspector unavailable')
    await advance(60_000)
    await advance(60_000)
    assert.equal(proc.releases, 0)
    assert.equal(lines.filter((l) => l.startsWith('WARN')).length, 1)
    assert.match(lines.join(''), /could not release memory: inspector unavailable/)
  })

  it('runs one release at a time: checks during a release neither release nor end the spell', async () => {
    const { proc, release } = start(0)
    let finish!: () => void
    const inFlight = new Promise<void>((resolve) => (finish = resolve))
    proc.release = async () => {
      await inFlight
      proc.releases += 1
    }
    const first = release.check()
    proc.busy = 1
    await release.check()
    proc.busy = 0
    await release.check()
    finish()
    await first
    assert.equal(proc.releases, 1)
    proc.heap = 40 * MB
    await release.check()
    assert.equal(proc.releases, 1, 'the busy check during the release did not start a new spell')
  })

  it('stops for good when no inspector session can be had in this process', async () => {
    const { proc, lines, release, advance } = start()
    proc.fail = Object.assign(new Error('Inspector is not available'), {
      code: 'ERR_INSPECTOR_NOT_AVAILABLE',
    })
    await advance(60_000)
    proc.busy = 1
    await advance(1_000)
    proc.busy = 0
    await advance(60_000)
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /^WARN {2}memory: cannot ask V8 to give memory back here/)
    assert.equal(release.releases, 0)
  })

  it('checks on its own timer', async () => {
    const proc = new FakeProcess()
    release = new QuietMemoryRelease({
      quietMs: 50,
      checkMs: 10,
      probe: proc,
      log: createLogger('error', () => {}),
    })
    const deadline = Date.now() + 5_000
    while (proc.releases === 0 && Date.now() < deadline) await sleep(10)
    assert.equal(proc.releases, 1)
  })
})

describe('the real probe', () => {
  it('reads how busy the event loop was, the heap and RSS', async () => {
    const probe = processProbe()
    await sleep(5)
    const blockedUntil = performance.now() + 150
    while (performance.now() < blockedUntil);
    await sleep(5)
    const busy = probe.busyShare()
    assert.ok(busy > 0.5, `a loop blocked for 150 ms of about 160 reads as busy (${busy})`)
    await sleep(200)
    const idle = probe.busyShare()
    assert.ok(idle < BUSY_SHARE, `a loop asleep for 200 ms reads as quiet (${idle})`)
    assert.ok(probe.heapBytes() > MB)
    assert.ok(probe.rss() > probe.heapBytes() / 2)
  })

  // This shows that a collection ran, not that it was a memory-reducing one: V8 does not say.
  it('runs a memory-reducing collection through an in-process inspector session', async () => {
    const weak = new WeakRef(Array.from({ length: 50_000 }, (_, i) => ({ i })))
    await memoryReducingCollection()
    assert.equal(weak.deref(), undefined, 'the garbage was collected')
    await memoryReducingCollection()
  })
})
