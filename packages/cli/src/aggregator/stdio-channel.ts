/**
 * A stdio upstream as a channel: the supervised child of `stdio-supervisor.ts`. Each spawn opens
 * the channel (the new child needs its own `initialize`), each exit loses it, and output of a dead
 * child is ignored. Restarting is the supervisor's business (`stdio-supervisor.ts`).
 */
import type { Logger } from '../log/logger.js'
import type { StdioExit, StdioSupervisor } from '../stdio/stdio-supervisor.js'
import type { JsonRpcMessage } from '@burrow/protocol'
import type { ChannelEvents, UpstreamChannel } from './upstream-channel.js'

/** Options of `StdioChannel`. */
export interface StdioChannelOptions {
  readonly supervisor: StdioSupervisor
  /** Upstream name, for log messages. */
  readonly name: string
  readonly logger: Logger
  /** Report message sizes through `ChannelEvents.bytes` (costs a serialisation per message in). */
  readonly countBytes?: boolean
}

/** A channel over one supervised stdio MCP server. */
export class StdioChannel implements UpstreamChannel {
  readonly #sup: StdioSupervisor
  readonly #opts: StdioChannelOptions
  #events: ChannelEvents | undefined
  /** Generation of the child whose messages count; 0 while none runs. */
  #live = 0

  constructor(options: StdioChannelOptions) {
    this.#sup = options.supervisor
    this.#opts = options
  }

  get canRetry(): boolean {
    return this.#sup.running
  }

  start(events: ChannelEvents): void {
    this.#events = events
    this.#sup.on('spawn', (generation) => {
      this.#live = generation
      events.open()
    })
    this.#sup.on('exit', (exit) => {
      if (exit.generation === this.#live) this.#live = 0
      events.lost(exitReason(exit))
    })
    this.#sup.on('message', (message, generation) => this.#onMessage(message, generation))
    if (this.#sup.generation === 0) this.#sup.start()
  }

  async send(message: JsonRpcMessage): Promise<void> {
    // The supervisor throws StdioUnavailableError, whose message says why, while no child runs.
    this.#sup.send(message)
    if (this.#opts.countBytes) this.#events?.bytes('out', byteLength(message) + 1)
  }

  close(): Promise<void> {
    return this.#sup.close()
  }

  #onMessage(message: JsonRpcMessage, generation: number): void {
    if (generation !== this.#live || !this.#events) return
    if (this.#opts.countBytes) this.#events.bytes('in', byteLength(message) + 1)
    this.#events.message(message)
  }
}

/** Why the channel is down, from the supervisor's account of the exit. */
function exitReason(exit: StdioExit): string {
  const how = exit.error
    ? `failed to start (${exit.error.message})`
    : exit.signal
      ? `was killed (${exit.signal})`
      : `exited (code ${exit.code ?? 'unknown'})`
  if (exit.restartInMs === null) return `the stdio server ${how} and is not restarted`
  return `the stdio server ${how}; restarting in ${(exit.restartInMs / 1000).toFixed(1)} s`
}

function byteLength(message: JsonRpcMessage): number {
  return Buffer.byteLength(JSON.stringify(message))
}
