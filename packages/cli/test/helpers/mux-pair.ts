/**
 * A broker's and a client's TunnelMux joined in memory: frames each sends wait until `flush`
 * hands them over (for a few turns of the event loop, so that work they start can answer).
 * `fromClient` lists every frame the client sent.
 */
import { decodeFrame, TunnelMux, type Frame, type TunnelMuxOptions } from '@burrow/protocol'

export function muxPair(onOpen: TunnelMuxOptions['onOpen']) {
  const fromClient: Frame[] = []
  const toClient: Uint8Array[] = []
  const toBroker: Uint8Array[] = []
  const broker = new TunnelMux({
    role: 'broker',
    transport: { send: (b) => void toClient.push(b) },
  })
  const client = new TunnelMux({
    role: 'client',
    transport: {
      send: (b, done) => {
        toBroker.push(b)
        fromClient.push(decodeFrame(b))
        if (done) queueMicrotask(done)
      },
    },
    onOpen,
  })
  const flush = async () => {
    for (let i = 0; i < 10; i++) {
      while (toClient.length || toBroker.length) {
        while (toClient.length) client.receive(toClient.shift()!)
        while (toBroker.length) broker.receive(toBroker.shift()!)
      }
      await new Promise((r) => setImmediate(r))
    }
  }
  return { broker, client, fromClient, flush }
}
