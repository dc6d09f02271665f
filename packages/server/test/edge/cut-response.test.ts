// A response the bandwidth quota cuts: reset once its head has gone, answered with the 429
// envelope and its request's ids while it waits for its answer (found by a review).
import assert from 'node:assert/strict'
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, it } from 'node:test'
import { cutResponse } from '../../src/edge/cut-response.js'
import { noteRefusedIds } from '../../src/edge/request-ids.js'

/** A server that cuts each response after `before` ran; what the client saw. */
async function cutAfter(
  before: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ status: number; body: string; error: string | null }> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      before(req, res)
      cutResponse(req, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  try {
    return await new Promise((resolve) => {
      const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/mcp' }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, error: null }))
        res.on('error', (e) => resolve({ status: res.statusCode ?? 0, body, error: e.message }))
      })
      req.on('error', (e) => resolve({ status: 0, body: '', error: e.message }))
      req.end('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}')
    })
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
}

describe('cutResponse', () => {
  it('answers a request still waiting for its answer with the 429 envelope and its id', async () => {
    const seen = await cutAfter((req) => noteRefusedIds(req, 7))
    assert.equal(seen.status, 429)
    const body = JSON.parse(seen.body) as {
      id: unknown
      error: { data: { policy_code: string; reason: string } }
    }
    assert.equal(body.id, 7)
    assert.equal(body.error.data.policy_code, 'quota_exceeded')
    assert.match(body.error.data.reason, /the response was cut/)
  })

  it('resets a response whose head has gone', async () => {
    const seen = await cutAfter((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: {}\n\n')
    })
    // Reset: whatever of it arrived, it does not end as if complete.
    assert.notEqual(seen.error, null, `ended as if complete: ${seen.status} ${seen.body}`)
  })
})
