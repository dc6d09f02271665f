/**
 * A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL in the tests) that can be
 * frozen: while frozen, nothing it holds is passed either way and new connections are accepted
 * and held unanswered, as a server that stalls (stopped, swapping, behind a network that drops
 * packets) looks to its clients. Thawed, everything held goes on.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

/** A proxy that can stall. */
export interface FreezableProxy {
  readonly port: number
  freeze(): void
  thaw(): void
  close(): Promise<void>
}

/** Start a proxy to `host`:`port`. */
export async function startFreezableProxy(host: string, port: number): Promise<FreezableProxy> {
  let frozen = false
  const pairs: Array<readonly [Socket, Socket]> = []
  const waiting: Socket[] = []
  const link = (client: Socket) => {
    const upstream = connect(port, host)
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    client.pipe(upstream)
    upstream.pipe(client)
    pairs.push([client, upstream])
    client.resume()
  }
  const server = createServer((client) => {
    client.on('error', () => {})
    if (frozen) {
      client.pause()
      waiting.push(client)
    } else {
      link(client)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    freeze() {
      frozen = true
      for (const [client, upstream] of pairs) {
        client.pause()
        upstream.pause()
      }
    },
    thaw() {
      frozen = false
      for (const [client, upstream] of pairs) {
        client.resume()
        upstream.resume()
      }
      for (const client of waiting.splice(0)) link(client)
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy()
        upstream.destroy()
      }
      for (const client of waiting) client.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
