// A minimal Chrome DevTools Protocol client for a child started with `--inspect=127.0.0.1:0`:
// enough to force a full garbage collection in burrowd and read `process.memoryUsage()`, so the
// idle-tunnel row can tell retained memory from garbage not yet collected.
import { WebSocket } from 'ws'

/** Heap numbers of the inspected process, in bytes. */
export interface MemoryUsage {
  readonly rss: number
  readonly heapUsed: number
  readonly external: number
  readonly arrayBuffers: number
}

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

  /** `process.memoryUsage()` of the inspected process. */
  async memoryUsage(): Promise<MemoryUsage> {
    const result = (await this.#call('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
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
