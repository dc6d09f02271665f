/**
 * The tunnel's policy as an agent's GET stream applies it: the stream lives for hours, and each
 * event on it is shaped by the policy as it is when the event passes, the one a POST arriving
 * then would get (rug-pull mode, tool rules, forwarded redaction). It is the policies' cached
 * copy, dropped on this node and through cluster events on every other when the policy changes,
 * and read again a few seconds after it was read: `refresh` takes it at once when the cache holds
 * it, and otherwise says when it is loaded (one read shared by every request of the tunnel on
 * this node, never one per event).
 */
import type { Policies } from '../governance/policies.js'
import type { ToolPins } from '../governance/tool-pins.js'
import type { TunnelGovernance } from '../governance/tunnel-governance.js'
import { rugPullFor, type RugPull } from './govern-request.js'

/** One tunnel's policy for one GET stream, as of its last `refresh`. */
export class LivePolicy {
  readonly #policies: Policies
  readonly #pins: ToolPins | null
  readonly #tunnel: RugPull['tunnel']
  #governance: TunnelGovernance
  #rug: RugPull | null
  /** How many times the policy the stream applies changed since it opened. */
  #changes = 0

  /** `governance` and `rug`: what the stream's request was admitted under. */
  constructor(
    policies: Policies,
    pins: ToolPins | null,
    tunnel: RugPull['tunnel'],
    governance: TunnelGovernance,
    rug: RugPull | null,
  ) {
    this.#policies = policies
    this.#pins = pins
    this.#tunnel = tunnel
    this.#governance = governance
    this.#rug = rug
  }

  /** The policy as of the last `refresh` (at first, the request's). */
  get governance(): TunnelGovernance {
    return this.#governance
  }

  /** Rug-pull protection as of the last `refresh`: null while the policy has it off. */
  get rug(): RugPull | null {
    return this.#rug
  }

  /** How many times `refresh` found another version of the policy than the one before. */
  get changes(): number {
    return this.#changes
  }

  /**
   * Take the tunnel's policy as it is now: true when that was done at once (the cache held it),
   * else a promise settled once it was loaded (rejected when it could not be).
   */
  refresh(): true | Promise<void> {
    const cached = this.#policies.cachedGovernance(this.#tunnel.id)
    if (cached !== undefined) return this.#adopt(cached)
    return this.#policies.governance(this.#tunnel.id).then((loaded) => {
      const adopted = this.#adopt(loaded)
      return adopted === true ? undefined : adopted
    })
  }

  /** Apply `governance` from now on, with its rug-pull protection (pins loaded if need be). */
  #adopt(governance: TunnelGovernance): true | Promise<void> {
    // The same version (read again once the cache's few seconds passed): nothing changed, and
    // its rug-pull protection is what it was (the pins a listing is judged by are read as they
    // are when it passes, govern-request.ts).
    if (governance.version === this.#governance.version) return true
    const rug = rugPullFor(this.#pins, this.#tunnel, governance, null)
    if (!(rug instanceof Promise)) {
      this.#set(governance, rug)
      return true
    }
    return rug.then((loaded) => this.#set(governance, loaded))
  }

  #set(governance: TunnelGovernance, rug: RugPull | null): void {
    this.#governance = governance
    this.#rug = rug
    this.#changes++
  }
}
