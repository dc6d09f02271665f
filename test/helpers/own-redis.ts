/**
 * A redis-server of a test's own on a free loopback port, without persistence, that the test can
 * kill (SIGKILL: restarted empty), stall (SIGSTOP / SIGCONT) and start again on the same port.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { freePort } from './free-port.js'

/** One redis-server process at a time, on one port. */
export class OwnRedis {
  readonly port: number
  #proc: ChildProcess | null = null

  private constructor(port: number) {
    this.port = port
  }

  /** A server on a free port, started and answering. */
  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort())
    await redis.start()
    return redis
  }

  /** `redis://127.0.0.1:<port>`. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`
  }

  /** Whether a server process is running (stalled or not). */
  get running(): boolean {
    return this.#proc !== null
  }

  /** Start a server (empty) on the port, and wait until it answers. */
  async start(): Promise<void> {
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ]
    this.#proc = spawn('redis-server', args, { stdio: 'ignore' })
    for (let i = 0; ; i++) {
      const probe = new Redis(this.port, '127.0.0.1', {
        lazyConnect: true,
        retryStrategy: () => null,
      })
      probe.on('error', () => {})
      try {
        await probe.connect()
        probe.disconnect()
        return
      } catch (err) {
        probe.disconnect()
        if (i > 100) throw err
        await sleep(50)
      }
    }
  }

  /** Kill the server (SIGKILL: nothing kept) and wait for it to exit. */
  async kill(): Promise<void> {
    const proc = this.#proc
    if (proc === null) return
    this.#proc = null
    const gone = new Promise((resolve) => proc.once('exit', resolve))
    proc.kill('SIGCONT')
    proc.kill('SIGKILL')
    await gone
  }

  /** Stop the server answering, without closing its connections (SIGSTOP). */
  stall(): void {
    this.#proc?.kill('SIGSTOP')
  }

  /** Let a stalled server go on (SIGCONT). */
  resume(): void {
    this.#proc?.kill('SIGCONT')
  }
}
