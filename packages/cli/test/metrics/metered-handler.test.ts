/**
 * Counting single-upstream traffic: each tunnelled request counts under its JSON-RPC method (one
 * per message of a batch, the HTTP method otherwise), request bodies as bytes `out` to the
 * upstream and response bodies as bytes `in` from it; the inner handler sees everything as is.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CliMetrics } from '../../src/metrics/cli-metrics.js'
import { MeteredHandler, methodsOf } from '../../src/metrics/metered-handler.js'
import type { LocalRequest, LocalResponse, RequestHandler } from '../../src/relay/local-exchange.js'

function request(method: string, body = ''): LocalRequest {
  return {
    method,
    path: '/mcp',
    headers: {},
    body: new TextEncoder().encode(body),
    signal: new AbortController().signal,
  }
}

function response(): LocalResponse & { chunks: Uint8Array[]; status: number } {
  const res = {
    chunks: [] as Uint8Array[],
    status: 0,
    closed: false,
    writeHead(status: number) {
      res.status = status
    },
    write(chunk: Uint8Array) {
      res.chunks.push(chunk)
      return true
    },
    end() {
      res.closed = true
    },
    onDrain() {},
  }
  return res
}

/** Answers every request with `reply` in two chunks. */
class EchoHandler implements RequestHandler {
  seen: LocalRequest[] = []
  closed = false
  async handle(req: LocalRequest, res: LocalResponse): Promise<void> {
    this.seen.push(req)
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write(new Uint8Array(10))
    res.write(new Uint8Array(5))
    res.end()
  }
  async close(): Promise<void> {
    this.closed = true
  }
}

describe('MeteredHandler', () => {
  it('counts requests by method and bytes each way, passing everything through', async () => {
    const metrics = new CliMetrics()
    const inner = new EchoHandler()
    const handler = new MeteredHandler(inner, metrics)
    const call = request('POST', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}')
    const res = response()
    await handler.handle(call, res)
    await handler.handle(request('GET'), response())
    assert.equal(inner.seen[0], call)
    assert.equal(res.status, 200)
    assert.equal(res.chunks.length, 2)
    assert.ok(res.closed)
    const text = await metrics.registry.metrics()
    const has = (line: string) =>
      assert.ok(text.split('\n').includes(line), `missing ${line}:\n${text}`)
    has('burrow_upstream_requests_total{upstream="default",method="tools/call"} 1')
    has('burrow_upstream_requests_total{upstream="default",method="GET"} 1')
    has(`burrow_upstream_bytes_total{upstream="default",direction="out"} ${call.body.length}`)
    has('burrow_upstream_bytes_total{upstream="default",direction="in"} 30')
    await handler.close()
    assert.ok(inner.closed)
  })

  it('labels with the upstream name when given one', async () => {
    const metrics = new CliMetrics()
    await new MeteredHandler(new EchoHandler(), metrics, 'files').handle(
      request('DELETE'),
      response(),
    )
    assert.match(await metrics.registry.metrics(), /upstream="files",method="DELETE"\} 1/)
  })
})

describe('methodsOf', () => {
  it('reads JSON-RPC methods from POST bodies, falling back to the HTTP method', () => {
    assert.deepEqual(methodsOf(request('POST', '{"jsonrpc":"2.0","method":"ping","id":1}')), [
      'ping',
    ])
    assert.deepEqual(
      methodsOf(
        request(
          'POST',
          '[{"jsonrpc":"2.0","method":"a","id":1},{"jsonrpc":"2.0","method":"notifications/b"}]',
        ),
      ),
      ['a', 'notifications/b'],
    )
    assert.deepEqual(methodsOf(request('POST', '{"jsonrpc":"2.0","id":1,"result":{}}')), ['POST'])
    // Not valid JSON-RPC (no "jsonrpc"), but it names a method: counted under it.
    assert.deepEqual(methodsOf(request('POST', '{"id":1,"method":"tools/call"}')), ['tools/call'])
    assert.deepEqual(methodsOf(request('POST', 'not json')), ['POST'])
    assert.deepEqual(methodsOf(request('POST', 'null')), ['POST'])
    assert.deepEqual(methodsOf(request('GET')), ['GET'])
  })
})
