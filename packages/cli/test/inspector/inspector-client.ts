/**
 * A raw HTTP client for the inspector's tests: full control over Host, Origin and the other
 * headers (fetch would not allow setting Host), plus a way to hold a port.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import type { Inspector } from '../../src/inspector/inspector-server.js'

/** An answer as received. */
export interface Reply {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A request with full control over Host and the other headers (fetch would not allow it). */
export function send(
  port: number,
  path: string,
  options: {
    method?: string
    headers?: Record<string, string>
    body?: string
    /** Where to connect; 127.0.0.1 unless given. */
    address?: string
  } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: options.address ?? '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

/** Like `send`, with the token as a Bearer header and a JSON body for POSTs. */
export function authed(
  inspector: Inspector,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return send(inspector.port, path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${inspector.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

/** Send raw bytes and collect the raw answer until the server closes. */
export function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text))
    let answer = ''
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')))
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
  })
}

/** Hold a port on 127.0.0.1 (0: any free one). */
export async function occupy(port = 0): Promise<Server> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: '127.0.0.1', port, exclusive: true }, resolve)
  })
  return server
}

/** The port a server listens on. */
export const portOf = (server: Server): number => (server.address() as AddressInfo).port
