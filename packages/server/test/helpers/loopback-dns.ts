/**
 * A DNS server on 127.0.0.1 (UDP, port 0) for tests of name lookups: it answers `A 127.0.0.1`
 * for every name except those `silent` picks, whose queries it swallows, as the nameservers of
 * a name that never resolves do. `lookup` resolves through it with a real resolver (c-ares, one
 * try of `timeoutMs`), in the shape burrowd's bounded resolver takes.
 */

import { Resolver } from 'node:dns'
import { createSocket } from 'node:dgram'
import type { LookupAll } from '../../src/webhooks/system-resolve.js'

/** A running loopback DNS server. */
export interface LoopbackDns {
  /** Names asked, in the order their queries arrived. */
  readonly asked: string[]
  /**
   * A resolver through this server whose tries give up after `timeoutMs`; `cancel` ends its
   * queries still waiting (they fail with `ECANCELLED`).
   */
  lookup(timeoutMs: number): LookupAll & { cancel(): void }
  close(): Promise<void>
}

/** The queried name of a DNS message, and where its question ends; null when malformed. */
function question(query: Buffer): { name: string; end: number } | null {
  const labels: string[] = []
  let at = 12
  for (;;) {
    const length = query[at]
    if (length === undefined || length > 63) return null
    at++
    if (length === 0) break
    labels.push(query.subarray(at, at + length).toString('latin1'))
    at += length
  }
  const end = at + 4
  return end > query.length ? null : { name: labels.join('.').toLowerCase(), end }
}

/** Start a server that never answers names `silent` returns true for. */
export async function startLoopbackDns(silent: (name: string) => boolean): Promise<LoopbackDns> {
  const socket = createSocket('udp4')
  const asked: string[] = []
  socket.on('message', (query, from) => {
    const q = question(query)
    if (q === null) return
    asked.push(q.name)
    if (silent(q.name)) return
    const header = Buffer.from(query.subarray(0, 12))
    header.writeUInt16BE(0x8180, 2) // a response, recursion desired and available, no error
    header.writeUInt16BE(1, 4)
    header.writeUInt16BE(1, 6)
    header.writeUInt32BE(0, 8)
    const answer = Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1])
    const reply = Buffer.concat([header, query.subarray(12, q.end), answer])
    socket.send(reply, from.port, from.address)
  })
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  const server = `127.0.0.1:${socket.address().port}`
  return {
    asked,
    lookup(timeoutMs) {
      const resolver = new Resolver({ timeout: timeoutMs, tries: 1 })
      resolver.setServers([server])
      const lookup: LookupAll = (hostname, _options, callback) =>
        resolver.resolve4(hostname, (error, addresses) =>
          callback(error, error ? [] : addresses.map((address) => ({ address, family: 4 }))),
        )
      return Object.assign(lookup, { cancel: () => resolver.cancel() })
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  }
}
