/**
 * A tunnel in memory for tests of the edge's relay: the broker's side, whose streams the relay
 * reads, and a client's side that gives each stream it is opened to `onOpen` (the local server).
 * Frames cross on the next turn of the loop, as over a socket.
 */
import { TunnelMux, type MuxStream } from '@burrow/protocol'

/** The broker's side of a tunnel whose client hands each stream to `onOpen`. */
export function memoryTunnel(onOpen: (stream: MuxStream) => void): TunnelMux {
  const broker: TunnelMux = new TunnelMux({
    role: 'broker',
    transport: { send: (bytes) => setImmediate(() => client.receive(bytes)) },
  })
  const client: TunnelMux = new TunnelMux({
    role: 'client',
    transport: { send: (bytes) => setImmediate(() => broker.receive(bytes)) },
    onOpen,
  })
  return broker
}
