/**
 * The bridge between a 2025 server's requests to its client (elicitation, sampling, roots) and a
 * 2026-07-28 agent, which cannot be sent requests: it is answered instead with an `input_required`
 * result that embeds them, and its retry carries the answers back (multi round-trip requests). The
 * server's call stays open meanwhile, parked here under the round's `requestState`: an opaque
 * random token, new each round, that the agent echoes and that names nothing but the parked call.
 * On `oauth` and `token` tunnels only the agent that made the call may use it (modern-front.ts).
 */
import { randomBytes } from 'node:crypto'
import { ownEntry } from '@burrow/protocol'

/**
 * The client capability each server→client request needs: only these can be bridged to a
 * 2026-07-28 agent, and an agent that did not declare one is never sent its request.
 */
const BRIDGED_CAPABILITY: Readonly<Record<string, string>> = Object.freeze({
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
})

/** The capability server→client request `method` needs, or undefined when it cannot be bridged. */
export function bridgedCapability(method: string): string | undefined {
  return ownEntry(BRIDGED_CAPABILITY, method)
}

/** Requests whose agents may be answered with `input_required` (2026-07-28 MRTR). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
])

/** Prefix of every `requestState` the front issues. */
const STATE_PREFIX = 'burrow-mrtr.'

/** Calls waiting for an agent's retry, by `requestState`, at most `max` at once. */
export class InputBridge<Call> {
  readonly #parked = new Map<string, Call>()
  readonly #states = new Map<Call, string>()
  readonly #max: number

  /**
   * `max`: calls parked at once. Each holds a session of the local server and its open request
   * for up to the wait, so they are bounded like the sessions they are.
   */
  constructor(max = Infinity) {
    this.#max = max
  }

  /** Park `call` under a fresh `requestState`, returned; null when `max` calls wait already. */
  park(call: Call): string | null {
    this.forget(call)
    if (this.#parked.size >= this.#max) return null
    const state = STATE_PREFIX + randomBytes(18).toString('base64url')
    this.#parked.set(state, call)
    this.#states.set(call, state)
    return state
  }

  /**
   * The call parked under `state`, removed; undefined for any other value, and for a call
   * `accepts` refuses (it stays parked: another agent holding the state neither resumes nor ends
   * it).
   */
  take(state: unknown, accepts: (call: Call) => boolean = () => true): Call | undefined {
    if (typeof state !== 'string') return undefined
    const call = this.#parked.get(state)
    if (call === undefined || !accepts(call)) return undefined
    this.#parked.delete(state)
    this.#states.delete(call)
    return call
  }

  /** Forget `call` if it is parked (it ended). */
  forget(call: Call): void {
    const state = this.#states.get(call)
    if (state === undefined) return
    this.#states.delete(call)
    this.#parked.delete(state)
  }

  /** True when `state` is one the front issues (parked or not). */
  static issued(state: unknown): boolean {
    return typeof state === 'string' && state.startsWith(STATE_PREFIX)
  }

  /** Every parked call (for shutdown). */
  calls(): Call[] {
    return [...new Set(this.#parked.values())]
  }

  /** Number of parked calls. */
  get size(): number {
    return this.#parked.size
  }
}
