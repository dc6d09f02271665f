/**
 * A request to a tunnel through its custom domain whose handling fails (a stalled database,
 * Redis unreachable, a bug) is refused as the tunnel's own hostname refuses it: the JSON-RPC
 * envelope with the call's id, 503 with Retry-After for a stalled database. burrowd's request
 * handler tells the failure answer a request is a tunnel's by its hostname's label, which a
 * custom domain has none of: such a call got a plain-text page, which no agent's SDK matches to
 * its call.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { routeCustomDomain } from '../../src/domains/custom-domain-routing.js'
import type { CustomDomains } from '../../src/domains/custom-domains.js'
import type { Edge } from '../../src/edge/edge.js'
import { answerFailure } from '../../src/http/answer-failure.js'
import { FailureLog } from '../../src/observability/failure-log.js'
import { QUERY_TIMEOUT_MESSAGE } from '../../src/store/bounded-pg-pool.js'

const DOMAIN = 'mcp.example.com'

describe('a custom domain whose handling fails', () => {
  let server: Server
  let port: number

  before(async () => {
    const domains = {
      candidate: (host: string) => host === DOMAIN,
      route: async () => ({ label: 'web--acme' }),
      allowed: () => true,
    } as unknown as CustomDomains
    // Fails before reading the body, as one waiting on a stalled database does.
    const edge = {
      handle: async () => {
        throw new Error(QUERY_TIMEOUT_MESSAGE)
      },
    } as unknown as Edge
    const failures = new FailureLog(silentLogger)
    // As serve.ts does: a custom domain's host has no tunnel label.
    server = createServer((req, res) => {
      routeCustomDomain({ domains, edge, originOf: (d) => `http://${d}` }, req, res, DOMAIN)
        .then((answered) => {
          if (!answered) res.end('the app')
        })
        .catch((err: Error) => answerFailure(failures, req, res, err, false))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it("answers the envelope with the call's id, 503 with Retry-After", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    })
    assert.equal(res.status, 503)
    assert.equal(res.headers.get('retry-after'), '5')
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/)
    const body = (await res.json()) as { id: unknown; error: { data: { reason: string } } }
    assert.equal(body.id, 7)
    assert.match(body.error.data.reason, /database/)
  })
})
