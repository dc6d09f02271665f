/**
 * Numeric JSON-RPC ids beyond 2^53 − 1 through real tunnels (a stdio server, two stdio servers
 * behind one endpoint, an HTTP server): JavaScript would round them, and an agent that reads ids
 * exactly would never match its answer. Each is refused with the envelope carrying the digits the
 * agent sent, counting nothing, while the largest exact id and the same digits as a string are
 * answered as sent.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import {
  liveCounter,
  openSession,
  startCountingServer,
  type CountingServer,
} from '../helpers/quota-stack.js'
import { ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const HELLO_SERVER = `${ROOT}examples/hello-server.mjs`
const LARGE = '9007199254740993'
const HUGE = '-123456789012345678901234567890'

/** POST raw JSON text, as an agent that reads and writes ids exactly would. */
async function postText(
  url: string,
  text: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; policy: string | null; text: string }> {
  const res = await publicFetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: text,
  })
  return { status: res.status, policy: res.headers.get('x-burrow-error'), text: await res.text() }
}

function initialize(id: string): string {
  const params =
    '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e","version":"1"}}'
  return `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":${params}}`
}

for (const layout of ['stdio', 'aggregator', 'http'] as const) {
  describe(`ids beyond 2^53 through a ${layout} tunnel`, () => {
    let service: Service
    let counting: CountingServer | undefined
    let client: Child
    let url: string
    let tunnelId: string

    before(async () => {
      service = await startService({ BURROW_LOG: 'info' })
      const tunnel = await service.tunnel(`${layout}-ids`)
      url = tunnel.url
      tunnelId = tunnel.id
      let args: string[]
      if (layout === 'http') {
        counting = await startCountingServer()
        args = ['--upstream', counting.url]
      } else if (layout === 'stdio') {
        args = ['--stdio', `node ${HELLO_SERVER}`]
      } else {
        args = ['--stdio', `a=node ${HELLO_SERVER}`, '--stdio', `b=node ${HELLO_SERVER}`]
      }
      client = await startClient(service, tunnel.key, args)
    })

    after(async () => {
      await client?.stop()
      await counting?.child.stop()
      await service?.close()
    })

    it('refuses an initialize with one, echoing the digits exactly', async () => {
      const answer = await postText(url, initialize(LARGE))
      assert.equal(answer.status, 400, answer.text)
      assert.equal(answer.policy, 'invalid_request')
      assert.match(answer.text, new RegExp(`^\\{"jsonrpc":"2.0","id":${LARGE},`))
      const body = JSON.parse(answer.text) as { error: { code: number; data: { reason: string } } }
      assert.equal(body.error.code, -32600)
      assert.match(body.error.data.reason, /within ±9007199254740991 .*as a string/)
    })

    it('refuses a batch holding one, one envelope per request with each id as sent', async () => {
      const batch = `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":${HUGE},"method":"ping"}]`
      const answer = await postText(url, batch, { 'mcp-protocol-version': '2025-03-26' })
      assert.equal(answer.status, 400, answer.text)
      assert.deepEqual(
        [...answer.text.matchAll(/"id":([^,]+),/g)].map((m) => m[1]),
        ['1', HUGE],
      )
    })

    it('counts no tool call for a call carrying one', async () => {
      const session = await openSession(url)
      const call = `{"jsonrpc":"2.0","id":${LARGE},"method":"tools/call","params":{"name":"echo","arguments":{}}}`
      const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }
      for (let i = 0; i < 3; i++) {
        const answer = await postText(url, call, headers)
        assert.equal(answer.status, 400, answer.text)
        assert.match(answer.text, new RegExp(`"id":${LARGE},`))
      }
      assert.equal(await liveCounter(service, tunnelId, 'tool_calls'), 0)
    })

    it('answers the largest exact id, and the same digits as a string, as sent', async () => {
      const exact = await postText(url, initialize('9007199254740991'))
      assert.equal(exact.status, 200, exact.text)
      assert.match(exact.text, /"id":9007199254740991[,}]/)
      const asString = await postText(url, initialize(`"${LARGE}"`))
      assert.equal(asString.status, 200, asString.text)
      assert.match(asString.text, new RegExp(`"id":"${LARGE}"`))
    })
  })
}
