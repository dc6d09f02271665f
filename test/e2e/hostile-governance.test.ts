/**
 * Hostile policy documents and governance inputs against a real burrowd: what a tunnel owner
 * (anyone with a free sign-up) can make the shared edge do with their own policy.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { connectFake, type FakeClient } from '../helpers/fake-client.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { BURROWD, startService, type Service } from '../helpers/stack.js'
import { bearerApi } from '../helpers/web-client.js'

const run = promisify(execFile)

describe('hostile governance inputs', { timeout: 120_000 }, () => {
  let service: Service
  let token: string
  let tunnel: { id: string; key: string; url: string }
  let client: FakeClient

  const api = (method: string, path: string, body?: unknown) =>
    bearerApi(`http://127.0.0.1:${service.port}`, token)<Record<string, unknown>>(
      method,
      path,
      body,
    )

  /** An agent's `tools/call` of `name` to the tunnel. */
  const callTool = (id: number, name: string) =>
    publicFetch(tunnel.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: {} },
      }),
    })

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    const { stdout } = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--name', 'hostile', '--json'],
      { env: service.env },
    )
    token = (JSON.parse(stdout) as { token: string }).token
    tunnel = await service.tunnel('victimless')
    client = await connectFake(service.broker, tunnel.key)
  })

  after(async () => {
    await client?.close().catch(() => {})
    await service?.close()
  })

  it('a glob in the policy cannot stall the node on a long tool name', async () => {
    const glob = `${'*a'.repeat(40)}*b`
    const put = await api('PUT', `/api/tunnels/${tunnel.id}/policy`, {
      tools: { deny: [glob] },
      rate_limits: [{ tool: glob, limit: 10, per_seconds: 60 }],
    })
    assert.equal(put.status, 200, JSON.stringify(put.json))
    const started = performance.now()
    const call = callTool(1, 'a'.repeat(200))
    const answered = client.nextRequest(10_000).then(
      (req) => req.replyJson(200, { jsonrpc: '2.0', id: 1, result: { content: [] } }),
      () => {},
    )
    // While the call is governed, the node still answers others at once.
    await new Promise((r) => setTimeout(r, 50))
    const health = await fetch(`http://127.0.0.1:${service.port}/healthz`, {
      signal: AbortSignal.timeout(5_000),
    }).then(
      (res) => res.status,
      (err: Error) => err.name,
    )
    const elapsed = performance.now() - started
    assert.equal(health, 200)
    assert.ok(elapsed < 2_000, `the node answered /healthz after ${Math.round(elapsed)} ms`)
    const res = await call
    await res.arrayBuffer()
    await answered
  })

  it('refuses patterns too large to join, and masks whole what a scan could take too long on', async () => {
    const body = Array.from({ length: 60 }, (_, j) => `${String.fromCharCode(97 + (j % 26))}{1000}`)
    const unjoinable = Array.from({ length: 50 }, (_, i) => `q${i}${body.join('').slice(0, 480)}`)
    const refused = await api('PUT', `/api/tunnels/${tunnel.id}/policy`, {
      redaction: { patterns: unjoinable },
    })
    assert.equal(refused.status, 400, JSON.stringify(refused.json))
    assert.match(JSON.stringify(refused.json), /redaction\.patterns.*more than the 2000 allowed/)

    const put = await api('PUT', `/api/tunnels/${tunnel.id}/policy`, {
      redaction: {
        patterns: ['[a-z]{1000}[0-9]', 'key-[0-9]+'],
        forwarded: true,
        detect_secrets: false,
      },
    })
    assert.equal(put.status, 200, JSON.stringify(put.json))
    const huge = `${'a'.repeat(1 << 20)}1`
    const small = 'x key-7 y'
    const call = callTool(2, 'echo')
    const req = await client.nextRequest(10_000)
    const reply = Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        result: {
          content: [
            { type: 'text', text: huge },
            { type: 'text', text: small },
          ],
        },
      }),
    )
    req.stream.respond({ status: 200, headers: [['content-type', 'application/json']] })
    for (let at = 0; at < reply.length; at += 16 * 1024) {
      req.stream.write(reply.subarray(at, at + 16 * 1024))
    }
    req.stream.end()
    const res = await call
    const text = await res.text()
    assert.equal(res.status, 200, text.slice(0, 500))
    const answer = JSON.parse(text) as { result: { content: { text: string }[] } }
    // Never forwarded unscanned: masked whole where scanning would cost the node too much.
    assert.deepEqual(
      answer.result.content.map((c) => c.text),
      ['[REDACTED:unscanned]', 'x [REDACTED:pattern] y'],
    )
  })

  it('limits how often the policy of a tunnel may be rewritten', async () => {
    let res: Response | undefined
    for (let i = 0; i < 40; i++) {
      res = await fetch(`http://127.0.0.1:${service.port}/api/tunnels/${tunnel.id}/policy`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tools: { deny: [`t${i}`] } }),
      })
      if (res.status !== 200) break
      await res.arrayBuffer()
    }
    assert.equal(res?.status, 429)
    assert.match(res.headers.get('retry-after') ?? '', /^\d+$/)
    const body = (await res.json()) as { error: { code: string; message: string } }
    assert.equal(body.error.code, 'rate_limited')
    assert.match(body.error.message, /changed 30 times in the last minute/)
    // What was in force stays in force.
    const now = await api('GET', `/api/tunnels/${tunnel.id}/policy`)
    assert.equal(now.status, 200)
    assert.equal(JSON.stringify(now.json).includes('"t39"'), false)
  })
})
