// undici connection pools for the benchmark. Public tunnel hosts (`<sub>--<slug>.localhost`) do
// not resolve everywhere, so every lookup answers 127.0.0.1 while the request keeps its real Host
// header, as test/helpers/public-fetch.ts does for the tests.
import type { LookupFunction } from 'node:net'
import { Pool } from 'undici'

const loopbackLookup: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }])
  else callback(null, '127.0.0.1', 4)
}

/** A keep-alive pool of exactly `connections` HTTP/1.1 connections to `origin`, no pipelining. */
export function loopbackPool(origin: string, connections: number): Pool {
  return new Pool(origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
    connect: { lookup: loopbackLookup },
  })
}
