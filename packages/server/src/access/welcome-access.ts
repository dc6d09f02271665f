/**
 * The access `burrow up` is told in WELCOME (and in NOTICE when the owner changes it while the
 * client is connected): the tunnel's mode, and its Access tab in the dashboard. The broker looks
 * the tunnel up by key (async) before the registry answers HELLO (sync), so the mode is noted on
 * the way, as `WelcomeUrls` notes custom URLs, and read back there.
 */
import type { AccessNote, Logger } from '@burrow/protocol'
import type { TunnelWithAccount } from '../store/store.js'
import type { AccessMode, TunnelAccess } from '../store/tunnel-access-row.js'

/** Most tunnels whose mode is kept (those that connected to this node); past it, all go. */
const MAX_NOTED = 100_000

/** The clients a tunnel's changed access is told to (the registry: those connected here). */
export interface AccessListeners {
  hasConnection(tunnelId: string): boolean
  tellAccess(tunnelId: string, access: AccessNote): void
}

/** Access modes of connecting and connected tunnels. */
export class WelcomeAccess {
  readonly #modes = new Map<string, AccessMode>()
  /** Reads begun, per tunnel: a read overtaken by a later one is not told (it may be older). */
  readonly #reads = new Map<string, number>()
  readonly #urlOf: (tunnelId: string) => string
  readonly #log: Logger
  #read: ((tunnelId: string) => Promise<TunnelAccess>) | null = null

  /** `urlOf` gives a tunnel's Access tab in the dashboard. */
  constructor(urlOf: (tunnelId: string) => string, log: Logger) {
    this.#urlOf = urlOf
    this.#log = log
  }

  /** Where settings come from (set once the access feature is built). */
  use(read: (tunnelId: string) => Promise<TunnelAccess>): void {
    this.#read = read
  }

  /** Note the mode of `tunnel`, which is connecting now; returns it, for chaining. */
  async note(tunnel: TunnelWithAccount | undefined): Promise<TunnelWithAccount | undefined> {
    if (tunnel !== undefined) await this.refresh(tunnel.id)
    return tunnel
  }

  /**
   * Read the mode of `tunnelId` again (its owner changed it) and return what to tell its client;
   * undefined when it cannot be read, and the WELCOME then says nothing rather than a guess.
   */
  async refresh(tunnelId: string): Promise<AccessNote | undefined> {
    if (this.#read === null) return undefined
    const read = (this.#reads.get(tunnelId) ?? 0) + 1
    if (this.#reads.size >= MAX_NOTED) this.#reads.clear()
    this.#reads.set(tunnelId, read)
    let mode: AccessMode | undefined
    try {
      mode = (await this.#read(tunnelId)).mode
    } catch (err) {
      this.#log.warn(`could not read the access of tunnel ${tunnelId}: ${(err as Error).message}`)
    }
    if (this.#reads.get(tunnelId) !== read) return undefined
    this.#reads.delete(tunnelId)
    if (this.#modes.size >= MAX_NOTED) this.#modes.clear()
    if (mode === undefined) this.#modes.delete(tunnelId)
    else this.#modes.set(tunnelId, mode)
    return this.noteOf(tunnelId)
  }

  /**
   * The owner changed the access of `tunnelId` (an `access` event, from any node): read it again
   * and tell its clients connected here a changed mode. Also when none is connected here but its
   * mode was noted or is being read: a client may be connecting, its key lookup having read the
   * settings before the change (or from this node's cache, which the event had not reached), and
   * its WELCOME would tell that old mode for as long as it stays connected.
   */
  async changed(tunnelId: string, clients: AccessListeners): Promise<void> {
    const known = this.#modes.has(tunnelId) || this.#reads.has(tunnelId)
    if (!clients.hasConnection(tunnelId) && !known) return
    const note = await this.refresh(tunnelId)
    if (note) clients.tellAccess(tunnelId, note)
  }

  /** What to tell `tunnel`'s client in WELCOME, if its mode was noted. */
  noteFor(tunnel: TunnelWithAccount): AccessNote | undefined {
    return this.noteOf(tunnel.id)
  }

  private noteOf(tunnelId: string): AccessNote | undefined {
    const mode = this.#modes.get(tunnelId)
    return mode === undefined ? undefined : { mode, url: this.#urlOf(tunnelId) }
  }
}
