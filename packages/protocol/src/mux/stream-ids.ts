/**
 * The stream ids of one tunnel connection (docs/protocol.md): the broker opens odd ones, the
 * client even ones, each side in increasing order, and only the broker opens streams. A frame for
 * an id that breaks these rules, or for a stream never opened, is a fault of the connection.
 */

/** Which end of the tunnel a mux is: the broker opens odd streams, the client even ones. */
export type MuxRole = 'broker' | 'client'

/** The ids one side has opened and the peer has opened. */
export class StreamIds {
  private readonly role: MuxRole
  private nextLocal: number
  private lastRemote = 0

  constructor(role: MuxRole) {
    this.role = role
    this.nextLocal = role === 'broker' ? 1 : 2
  }

  /** The id of a stream this side opens now. */
  takeLocal(): number {
    const id = this.nextLocal
    this.nextLocal += 2
    return id
  }

  /** Whether `id` is of the kind this side opens. */
  isLocal(id: number): boolean {
    return id % 2 === this.nextLocal % 2
  }

  /** Whether the peer may open stream `id` now: its parity, in order, and only towards a client. */
  acceptsOpen(id: number): boolean {
    return this.role === 'client' && id % 2 === 1 && id > this.lastRemote
  }

  /** The peer opened stream `id` (accepted or refused): its id is used up. */
  remoteOpened(id: number): void {
    this.lastRemote = id
  }

  /** Whether stream `id` was opened at some point, by either side. */
  seen(id: number): boolean {
    return this.isLocal(id) ? id < this.nextLocal : id <= this.lastRemote
  }
}
