/**
 * A WebSocket upgrade request made by hand with node:http, to see exactly what the broker answers
 * before any 101: either the HTTP response (a refusal) or the switch to the WebSocket protocol.
 */
import { randomBytes } from 'node:crypto'
import { request, type IncomingHttpHeaders } from 'node:http'

/** The broker's answer to an upgrade request. */
export type UpgradeOutcome =
  | {
      readonly kind: 'response'
      readonly status: number
      readonly headers: IncomingHttpHeaders
      readonly text: string
    }
  | { readonly kind: 'upgrade'; readonly status: number }

/** Send `GET /` with `Upgrade: websocket` to 127.0.0.1:`port` and report what came back. */
export function rawUpgrade(
  port: number,
  headers: Record<string, string> = {},
): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/',
      agent: false,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    })
    req.once('upgrade', (res, socket) => {
      socket.destroy()
      resolve({ kind: 'upgrade', status: res.statusCode ?? 0 })
    })
    req.once('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.once('end', () =>
        resolve({
          kind: 'response',
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      )
      res.once('error', reject)
    })
    req.once('error', reject)
    req.end()
  })
}
