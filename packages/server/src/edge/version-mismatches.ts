/**
 * Agents whose `MCP-Protocol-Version` header names a 2025 revision while their body speaks
 * 2026-07-28 (connectors in the field send that): such a body is served as it says, and the
 * disagreement is logged once per tunnel, so that an agent sending it on every call does not
 * fill the log.
 */
import { MODERN_PROTOCOL_VERSIONS, type JsonRpcBody, type Logger } from '@burrow/protocol'
import { isSessionless } from './body-facts.js'

/** Tunnels remembered at once; past this the memory starts over (each may be logged again). */
export const MAX_NOTED_TUNNELS = 10_000

/** The tunnels whose agents were seen sending a header that disagrees with the body. */
export class VersionMismatches {
  readonly #log: Logger
  readonly #max: number
  readonly #logged = new Set<string>()

  constructor(log: Logger, max = MAX_NOTED_TUNNELS) {
    this.#log = log
    this.#max = max
  }

  /** Log, once for `tunnelId`, a `header` that names an older revision than `rpc` speaks. */
  note(tunnelId: string, rpc: JsonRpcBody, header: string | undefined): void {
    if (header === undefined || !isSessionless(rpc) || MODERN_PROTOCOL_VERSIONS.includes(header))
      return
    if (this.#logged.has(tunnelId)) return
    if (this.#logged.size >= this.#max) this.#logged.clear()
    this.#logged.add(tunnelId)
    this.#log.info(
      `tunnel ${tunnelId}: an agent sent MCP-Protocol-Version ${header.slice(0, 40)} with a ` +
        '2026-07-28 body; served as the body says (logged once per tunnel)',
    )
  }
}
