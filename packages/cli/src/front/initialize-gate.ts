/**
 * The MCP handshake for many agents and one stdio child. The child is initialized once per process:
 * the first agent's `initialize` goes through, agents arriving meanwhile wait for it, and later
 * ones are answered from the cached InitializeResult (whose protocolVersion is the one the child
 * negotiated). Only the first `notifications/initialized` reaches the child. While the child is
 * restarting, an `initialize` waits for it for a bounded time instead of failing at once.
 */
import type { Logger } from '../log/logger.js'
import {
  errorResponse,
  JSONRPC_CODE,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '@burrow/protocol'
import type { StdioSession } from './stdio-session.js'

/** What the gate needs from the backend. */
export interface InitializeGateHooks {
  /** True while a child runs and takes messages. */
  childUp(): boolean
  /** Send the initialize to the child as an ordinary call; false when it could not be sent. */
  forward(session: StdioSession, message: JsonRpcRequest, signal: AbortSignal): boolean
}

interface Held {
  readonly session: StdioSession
  readonly message: JsonRpcRequest
  readonly signal: AbortSignal
  readonly timer: NodeJS.Timeout
}

type Phase =
  | { readonly name: 'none' }
  | { readonly name: 'pending' }
  | { readonly name: 'ready'; readonly result: Readonly<Record<string, unknown>> }

/** Lets one initialize per child through and answers the others. */
export class InitializeGate {
  readonly #hooks: InitializeGateHooks
  readonly #waitMs: number
  readonly #log: Logger
  #phase: Phase = { name: 'none' }
  #held: Held[] = []
  #initializedSent = false

  constructor(hooks: InitializeGateHooks, waitMs: number, logger: Logger) {
    this.#hooks = hooks
    this.#waitMs = waitMs
    this.#log = logger
  }

  /** True once the current child answered initialize with a result. */
  get ready(): boolean {
    return this.#phase.name === 'ready'
  }

  /** True while `session`'s initialize waits here (it has not reached the child). */
  holds(session: StdioSession): boolean {
    return this.#held.some((h) => h.session === session)
  }

  /** An agent's initialize request. */
  submit(session: StdioSession, message: JsonRpcRequest, signal: AbortSignal): void {
    const phase = this.#phase
    if (phase.name === 'ready') {
      session.sink.deliver({ jsonrpc: '2.0', id: message.id, result: phase.result })
      return
    }
    if (phase.name === 'none' && this.#hooks.childUp()) {
      if (this.#hooks.forward(session, message, signal)) this.#phase = { name: 'pending' }
      return
    }
    const timer = setTimeout(() => this.#expire(session), this.#waitMs)
    this.#held.push({ session, message, signal, timer })
  }

  /** The child answered the initialize that went through. */
  answered(answer: JsonRpcResponse): void {
    if ('result' in answer) {
      this.#phase = { name: 'ready', result: answer.result }
    } else {
      this.#log.warn(`the stdio server refused initialize: ${answer.error.message}`)
      this.#phase = { name: 'none' }
    }
    this.release()
  }

  /** True exactly once per child: forward this agent's `notifications/initialized`. */
  takeInitialized(): boolean {
    if (this.#phase.name !== 'ready' || this.#initializedSent) return false
    this.#initializedSent = true
    return true
  }

  /** Let waiting initializes proceed (after a spawn or an answer). */
  release(): void {
    while (this.#held.length > 0 && this.#phase.name !== 'pending' && this.#hooks.childUp()) {
      const held = this.#held.shift()!
      clearTimeout(held.timer)
      if (!held.signal.aborted) this.submit(held.session, held.message, held.signal)
    }
  }

  /** The child died: the next one must be initialized from scratch. */
  reset(): void {
    this.#phase = { name: 'none' }
    this.#initializedSent = false
  }

  /** Forget `session`'s waiting initialize (the session ended). */
  drop(session: StdioSession): void {
    for (const held of this.#held) if (held.session === session) clearTimeout(held.timer)
    this.#held = this.#held.filter((h) => h.session !== session)
  }

  /** Stop all timers. */
  close(): void {
    for (const held of this.#held) clearTimeout(held.timer)
    this.#held = []
  }

  #expire(session: StdioSession): void {
    const held = this.#held.find((h) => h.session === session)
    if (!held) return
    this.drop(session)
    const reason = `the stdio server did not come up within ${this.#waitMs / 1000} s; try again later`
    session.sink.deliver(errorResponse(held.message.id, JSONRPC_CODE.serverError, reason))
  }
}
