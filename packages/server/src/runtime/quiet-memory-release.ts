/**
 * Gives memory back to the system once burrowd has been quiet for a while. A burst (a thousand
 * tunnels connecting, a large transfer) makes V8 grow its heap, its young generation above all,
 * and burrowd runs with `--no-memory-reducer` (node-flags.ts), so V8 does not shrink it again on
 * its own schedule: on Node 20 the young generation's pages go back at the first minor
 * collection of a quiet process, but Node 22 and 24 keep them pooled until a memory-reducing
 * collection, and a broker holding idle tunnels kept 39 KB per tunnel instead of 10.
 *
 * So a broker that has been quiet for `quietMs` (its event loop busy under `BUSY_SHARE` of the
 * time in every check) asks V8 for one memory-reducing collection, through an in-process
 * inspector session: the first time whatever its heap (start-up leaves garbage of its own), later
 * only if the heap grew by `MIN_GROWTH_BYTES` since the last release. One per quiet spell: the
 * next waits until the broker was busy again (a broker that never rises above the threshold gets
 * one release, however its heap changes afterwards). It is a full collection: it pauses the
 * process for 70–105 ms with a thousand tunnels, more with a bigger heap. That is why the wait is
 * long (a minute by default), not the few seconds of V8's own memory reducer; and burrowd runs
 * with `--initial-old-space-size=64` so that the first large transfer after it does not grow the
 * heap back one mark-compact at a time (node-flags.ts).
 */
import { getHeapStatistics } from 'node:v8'
import type { Logger } from '@burrow/protocol'

/** An event loop busy less than this share of a check's interval counts as quiet. */
export const BUSY_SHARE = 0.05

/** Heap growth since the last release below which a release is not worth its pause. */
export const MIN_GROWTH_BYTES = 8 * 1024 * 1024

/** How the release reads the process and acts on it (real ones by default; tests pass fakes). */
export interface MemoryProbe {
  /** Share of the time since the previous call the event loop was busy (0–1). */
  busyShare(): number
  /** Bytes of heap V8 holds now (committed, physical). */
  heapBytes(): number
  /** Run one memory-reducing collection. */
  release(): Promise<void>
  /** Resident set size in bytes, for the log line. */
  rss(): number
}

/** Options of `QuietMemoryRelease`. */
export interface QuietMemoryReleaseOptions {
  /** Quiet time before a release, in ms. */
  readonly quietMs: number
  readonly log: Logger
  /** Time between checks, in ms (default a sixth of `quietMs`, at most 10 s). */
  readonly checkMs?: number
  readonly probe?: MemoryProbe
  /** A monotonic clock in ms (default `performance.now`). */
  readonly now?: () => number
}

/** Watches the process and releases memory after a quiet spell; `stop` ends it. */
export class QuietMemoryRelease {
  readonly #opts: QuietMemoryReleaseOptions
  readonly #probe: MemoryProbe
  readonly #now: () => number
  readonly #timer: NodeJS.Timeout
  #quietSince: number
  /** Heap bytes after the last release (0 before the first), and the most seen since. */
  #baseline = 0
  #peak = 0
  #releasedThisSpell = false
  #releasing = false
  #releases = 0
  #stopped = false

  constructor(opts: QuietMemoryReleaseOptions) {
    this.#opts = opts
    this.#probe = opts.probe ?? processProbe()
    this.#now = opts.now ?? (() => performance.now())
    this.#quietSince = this.#now()
    this.#probe.busyShare()
    const checkMs = opts.checkMs ?? Math.min(10_000, Math.max(100, opts.quietMs / 6))
    this.#timer = setInterval(() => {
      this.check().catch((err: Error) => opts.log.warn(`memory: check failed: ${err.message}`))
    }, checkMs)
    this.#timer.unref()
  }

  /** Releases run so far. */
  get releases(): number {
    return this.#releases
  }

  /** One check (the timer calls it; exposed for tests). Resolves once any release finished. */
  async check(): Promise<void> {
    if (this.#releasing || this.#stopped) return
    const now = this.#now()
    const heap = this.#probe.heapBytes()
    if (heap > this.#peak) this.#peak = heap
    const busy = this.#probe.busyShare()
    const log = this.#opts.log
    if (log.enabled('trace')) {
      const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
      log.trace(
        `memory: busy ${(busy * 100).toFixed(1)} %, quiet for ` +
          `${Math.round((now - this.#quietSince) / 1000)} s, heap ${mb(heap)} MB (peak ` +
          `${mb(this.#peak)}, ${this.#releases > 0 ? `${mb(this.#baseline)} after the last release` : 'no release yet'})`,
      )
    }
    if (busy >= BUSY_SHARE) {
      this.#quietSince = now
      this.#releasedThisSpell = false
      return
    }
    if (this.#releasedThisSpell || now - this.#quietSince < this.#opts.quietMs) return
    if (this.#peak - this.#baseline < MIN_GROWTH_BYTES) return
    this.#releasedThisSpell = true
    this.#releasing = true
    try {
      const rssBefore = this.#probe.rss()
      const started = performance.now()
      await this.#probe.release()
      this.#releases += 1
      this.#baseline = this.#probe.heapBytes()
      this.#peak = this.#baseline
      const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
      this.#opts.log.info(
        `memory: quiet for ${Math.round((now - this.#quietSince) / 1000)} s, gave back ` +
          `${mb(Math.max(0, rssBefore - this.#probe.rss()))} MB (RSS ${mb(this.#probe.rss())} MB, ` +
          `collection ${(performance.now() - started).toFixed(0)} ms)`,
      )
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code !== undefined && UNAVAILABLE.has(code)) {
        this.#opts.log.warn(
          `memory: cannot ask V8 to give memory back here (${code}); not trying again`,
        )
        this.stop()
      } else {
        this.#opts.log.warn(`memory: could not release memory: ${(err as Error).message}`)
      }
    } finally {
      this.#releasing = false
      // The collection's own pause is not the broker being busy.
      this.#probe.busyShare()
    }
  }

  /** Check no more (a release under way finishes). */
  stop(): void {
    this.#stopped = true
    clearInterval(this.#timer)
  }
}

/** Errors that mean no inspector session can be had in this process (a build without the
 * inspector, a permission model that denies it): the release stops for good. */
const UNAVAILABLE = new Set(['ERR_INSPECTOR_NOT_AVAILABLE', 'ERR_ACCESS_DENIED'])

/** The real probe: event-loop utilisation, V8's heap statistics, an inspector collection. */
export function processProbe(): MemoryProbe {
  let last = performance.eventLoopUtilization()
  return {
    busyShare() {
      const current = performance.eventLoopUtilization()
      const share = performance.eventLoopUtilization(current, last).utilization
      last = current
      return share
    },
    heapBytes: () => getHeapStatistics().total_physical_size,
    release: memoryReducingCollection,
    rss: () => process.memoryUsage.rss(),
  }
}

/**
 * One memory-reducing collection (what V8 runs on a low-memory notification: it also returns the
 * pages it pooled), asked for through an in-process inspector session, the one public way.
 */
export async function memoryReducingCollection(): Promise<void> {
  const { Session } = await import('node:inspector')
  const session = new Session()
  session.connect()
  try {
    await new Promise<void>((resolve, reject) =>
      session.post('HeapProfiler.collectGarbage', (err) => (err ? reject(err) : resolve())),
    )
  } finally {
    // Only once the reply's promise settled: disconnecting from inside the `post` callback hung
    // the main thread on Node 20.
    session.disconnect()
  }
}
