/**
 * A TCP proxy on 127.0.0.1 in front of a real server (Redis in the tests) that can lose one
 * reply: once armed, it passes the client's next command on to the server, then closes both
 * connections when the server's answer comes, without passing it back, as a connection that
 * drops at that moment looks to the client (the command ran, its reply is lost). Connections
 * made afterwards are passed through whole.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

/** A proxy that can drop a connection before one reply. */
export interface ReplyDroppingProxy {
  readonly port: number
  /** `redis://` URL of the proxy. */
  readonly url: string
  /** Drop the connection when the next reply from the server arrives. */
  dropNextReply(): void
  /** Resolves once an armed drop has happened. */
  dropped(): Promise<void>
  close(): Promise<void>
}

/** Start a proxy to `host`:`port`. */
export async function startReplyDroppingProxy(
  host: string,
  port: number,
): Promise<ReplyDroppingProxy> {
  let armed = false
  let droppedNow: () => void = () => {}
  let dropping = Promise.resolve()
  const pairs = new Set<readonly [Socket, Socket]>()
  const server = createServer((client) => {
    const upstream = connect(port, host)
    const pair = [client, upstream] as const
    pairs.add(pair)
    const end = () => {
      client.destroy()
      upstream.destroy()
      pairs.delete(pair)
    }
    client.on('error', end)
    upstream.on('error', end)
    client.on('close', end)
    upstream.on('close', end)
    client.on('data', (chunk: Buffer) => upstream.write(chunk))
    upstream.on('data', (chunk: Buffer) => {
      if (armed) {
        armed = false
        end()
        droppedNow()
        return
      }
      client.write(chunk)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const proxyPort = (server.address() as AddressInfo).port
  return {
    port: proxyPort,
    url: `redis://127.0.0.1:${proxyPort}`,
    dropNextReply() {
      armed = true
      dropping = new Promise<void>((resolve) => (droppedNow = resolve))
    },
    dropped() {
      return dropping
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy()
        upstream.destroy()
      }
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
