// A minimal Chrome DevTools Protocol client for a child started with `--inspect=127.0.0.1:0`:
// enough to force a full garbage collection in burrowd and read `process.memoryUsage()` and the
// young generation's size, so the idle-tunnel rows can tell retained memory from garbage not yet
// collected and from V8's young generation.
import { WebSocket } from 'ws'

/** Heap numbers of the inspected process, in bytes. */
export interface MemoryUsage {
  readonly rss: number
  readonly heapUsed: number
  readonly external: number
  readonly arrayBuffers: number
  /**
   * Memory V8's young generation holds (physical size of its new spaces). V8 grows it, up to a
   * fixed maximum, when many objects survive (a burst of new connections), and shrinks it in a
   * collection run while the process allocates little: a bounded, per-process cost, not a
   * per-tunnel one.
   */
  readonly youngGeneration: number
}

// Evaluated in the inspected process: memoryUsage() plus the young generation's size.
const MEMORY_EXPRESSION = `JSON.stringify({
  ...process.memoryUsage(),
  youngGeneration: process.getBuiltinModule('v8').getHeapSpaceStatistics()
    .filter((s) => s.space_name === 'new_space' || s.space_name === 'new_large_object_space')
    .reduce((sum, s) => sum + s.physical_space_size, 0),
})`

/** An open inspector session. */
export class Inspector {
  readonly #ws: WebSocket
  readonly #pending = new Map<number, (reply: { result?: unknown; error?: unknown }) => void>()
  #nextId = 1

  private constructor(ws: WebSocket) {
    this.#ws = ws
    ws.on('message', (data: Buffer) => {
      const msg = JSON.parse(data.toString('utf8')) as {
        id?: number
        result?: unknown
        error?: unknown
      }
      if (msg.id === undefined) return
      this.#pending.get(msg.id)?.(msg)
      this.#pending.delete(msg.id)
    })
  }

  /** Connect to the `ws://…` URL the child printed ("Debugger listening on …"). */
  static connect(url: string): Promise<Inspector> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false })
      ws.once('open', () => resolve(new Inspector(ws)))
      ws.once('error', reject)
    })
  }

  #call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`inspector: ${method} timed out`)), 30_000)
      this.#pending.set(id, (reply) => {
        clearTimeout(timer)
        if (reply.error) reject(new Error(`inspector: ${method}: ${JSON.stringify(reply.error)}`))
        else resolve(reply.result)
      })
      this.#ws.send(JSON.stringify({ id, method, params }))
    })
  }

  /** Run full garbage collections in the inspected process. */
  async collectGarbage(): Promise<void> {
    await this.#call('HeapProfiler.collectGarbage')
    await this.#call('HeapProfiler.collectGarbage')
  }

  /** `process.memoryUsage()` of the inspected process, and its young generation's size. */
  async memoryUsage(): Promise<MemoryUsage> {
    const result = (await this.#call('Runtime.evaluate', {
      expression: MEMORY_EXPRESSION,
      returnByValue: true,
    })) as { result?: { value?: unknown } }
    const value = result.result?.value
    if (typeof value !== 'string') throw new Error('inspector: memoryUsage returned nothing')
    return JSON.parse(value) as MemoryUsage
  }

  close(): void {
    this.#ws.terminate()
  }
}
