/**
 * Binds the inspector's HTTP server (docs/configuration.md): the default `127.0.0.1:4040` falls
 * back to a free port when taken, and says so; an address the user chose (`--inspect-addr`,
 * BURROW_INSPECT_ADDR) must bind as given, or `up` stops with a message saying what to do. So
 * must the default with a fixed token (BURROW_INSPECT_TOKEN): its URL is bookmarked, and whoever
 * holds the port would be sent the token by the browser.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from '@burrow/protocol'
import { UsageError } from '../cli-errors.js'

/** Where the inspector listens. */
export interface InspectorAddress {
  /** The host as given to listen(), without brackets: `127.0.0.1`, `::1`, `localhost`. */
  readonly host: string
  readonly port: number
}

/** Split `HOST:PORT` (IPv6 in brackets) into its parts. */
export function parseHostPort(addr: string): InspectorAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(addr)
  const port = Number(m?.[3])
  if (!m || port > 65535) {
    throw new UsageError(`--inspect-addr "${addr}" must be HOST:PORT, e.g. 127.0.0.1:4040`)
  }
  return { host: (m[1] ?? m[2])!, port }
}

/** How `bindInspector` treats an address it cannot listen on. */
export interface BindOptions {
  /** The user chose the address (`--inspect-addr`, BURROW_INSPECT_ADDR): no fallback. */
  readonly explicit: boolean
  /** The token is BURROW_INSPECT_TOKEN's: no fallback either. */
  readonly fixedToken: boolean
  readonly log: Logger
}

/** Listen on `addr`; when it is taken and may fall back, on a free port of the same host. */
export async function bindInspector(
  server: Server,
  addr: string,
  options: BindOptions,
): Promise<InspectorAddress> {
  const { explicit, fixedToken, log } = options
  const wanted = parseHostPort(addr)
  try {
    return await listen(server, wanted.host, wanted.port)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message
    if (explicit) {
      throw new UsageError(
        `inspector address ${addr} (--inspect-addr / BURROW_INSPECT_ADDR): cannot listen there (${code}); ` +
          'choose another HOST:PORT, or leave the address out to use 127.0.0.1:4040 or a free port',
      )
    }
    if (code !== 'EADDRINUSE') throw err
    if (fixedToken) {
      throw new UsageError(
        `inspector address ${addr} is in use, and BURROW_INSPECT_TOKEN is set: its URL would ` +
          'reach whatever holds that port. Stop what listens there, choose a free address with ' +
          '--inspect-addr, or leave BURROW_INSPECT_TOKEN out to get a fresh token on a free port',
      )
    }
    const bound = await listen(server, wanted.host, 0)
    log.warn(
      `inspector: ${addr} is in use; listening on ${hostForUrl(bound.host)}:${bound.port} instead`,
    )
    return bound
  }
}

/** The host as written in a URL: IPv6 in brackets, wildcard addresses as loopback. */
export function hostForUrl(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return host.includes(':') ? `[${host}]` : host
}

function listen(server: Server, host: string, port: number): Promise<InspectorAddress> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => {
      server.off('listening', onListening)
      reject(err)
    }
    const onListening = (): void => {
      server.off('error', onError)
      resolve({ host, port: (server.address() as AddressInfo).port })
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen({ host, port, exclusive: true })
  })
}
