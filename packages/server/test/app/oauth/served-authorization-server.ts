/**
 * An authorization server's `handle` on a real socket (127.0.0.1, port 0) for the OAuth endpoint
 * tests: its base URL, and `close`, which ends every connection first. A handler that throws
 * answers 500.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** What serves requests: the authorization server, as the app's router calls it. */
export interface Handles {
  handle(req: IncomingMessage, res: ServerResponse): Promise<unknown>
}

/** A served authorization server. */
export interface Served {
  readonly base: string
  close(): Promise<void>
}

/** Serve `server` on a fresh loopback port. */
export async function serveAuthorizationServer(server: Handles): Promise<Served> {
  const http = createServer((req, res) => {
    server.handle(req, res).catch(() => {
      res.statusCode = 500
      res.end()
    })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  return {
    base: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: async () => {
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    },
  }
}
