import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
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

  it('runs one release at a time when checks overlap', async () => {
    const { proc, release } = start(0)
    proc.heap = 40 * MB
    await Promise.all([release.check(), release.check(), release.check()])
    assert.equal(proc.releases, 1)
  })
})

describe('the real probe', () => {
  it('reads a busy share between 0 and 1, the heap and RSS', () => {
    const probe = processProbe()
    const share = probe.busyShare()
    assert.ok(share >= 0 && share <= 1, `busy share ${share}`)
    assert.ok(probe.heapBytes() > MB)
    assert.ok(probe.rss() > probe.heapBytes() / 2)
  })

  it('runs a memory-reducing collection through an in-process inspector session', async () => {
    const weak = new WeakRef(Array.from({ length: 50_000 }, (_, i) => ({ i })))
    await memoryReducingCollection()
    assert.equal(weak.deref(), undefined, 'the garbage was collected')
    await memoryReducingCollection()
  })
})
