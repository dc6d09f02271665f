/**
 * Raw connections for the tests of the local listeners' limits: one that sends only `first`
 * (nothing, or half a request) and reports when the server closes it.
 */
import { connect, type Socket } from 'node:net'

/** A connection to 127.0.0.1:`port` that sends `first` and then nothing. */
export interface IdleSocket {
  readonly socket: Socket
  /** Resolves true when the server closes the connection within `ms`, false otherwise. */
  closedWithin(ms: number): Promise<boolean>
}

/** Open a connection to 127.0.0.1:`port`, send `first`, and wait until it is connected. */
export async function idleSocket(port: number, first = ''): Promise<IdleSocket> {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  socket.resume()
  let closed = false
  const onClose = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed = true
      resolve()
    }),
  )
  await new Promise<void>((resolve) => {
    socket.once('connect', () => resolve())
    socket.once('close', () => resolve())
  })
  if (first !== '' && !closed) socket.write(first)
  return {
    socket,
    async closedWithin(ms) {
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))
      await Promise.race([onClose, late])
      clearTimeout(timer)
      return closed
    },
  }
}
