/**
 * McpFront as an agent sees it: the official SDK client (`Client` + StreamableHTTPClientTransport)
 * against the front on a real port, with the MCP reference server (server-everything) over stdio as
 * the child. Covers tools, progress, sampling, concurrent sessions with colliding ids, DELETE and
 * the child's restart.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { everythingServer } from '../helpers/fixtures.js'
import { post } from '../helpers/raw-mcp.js'
import { closeAllFronts, serveStdioFront, type ServedFront } from '../helpers/serve-front.js'

/** An SDK client that can sample, plus the JSON-RPC ids it sent. */
interface Agent {
  readonly client: Client
  readonly transport: StreamableHTTPClientTransport
  readonly sentIds: unknown[]
}

const open: Agent[] = []

async function connect(url: URL): Promise<Agent> {
  const sentIds: unknown[] = []
  // Record the ids on the wire, to show that two agents really use the same ones.
  const recordingFetch: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string') {
      const message = JSON.parse(init.body) as { id?: unknown }
      if (message.id !== undefined) sentIds.push(message.id)
    }
    return fetch(input, init)
  }
  const transport = new StreamableHTTPClientTransport(url, { fetch: recordingFetch })
  const client = new Client(
    { name: 'test-agent', version: '1.0.0' },
    { capabilities: { sampling: {} } },
  )
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
    model: 'test-model',
    role: 'assistant',
    content: { type: 'text', text: `sampled ${request.params.maxTokens} tokens` },
  }))
  await client.connect(transport)
  const agent = { client, transport, sentIds }
  open.push(agent)
  return agent
}

async function closeAgents(): Promise<void> {
  await Promise.all(open.splice(0).map((a) => a.client.close()))
}

function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text: string }[] }).content
  return content.map((c) => c.text).join('\n')
}

after(async () => {
  await closeAgents()
  await closeAllFronts()
})

describe('McpFront with the SDK client and server-everything', { timeout: 30_000 }, () => {
  let served: ServedFront

  before(async () => {
    served = await serveStdioFront(everythingServer)
  })
  after(async () => {
    await closeAgents()
    await served.close()
  })

  it('initializes and lists the tools', async () => {
    const { client } = await connect(served.url)
    assert.equal(client.getServerVersion()?.name, 'mcp-servers/everything')
    const names = (await client.listTools()).tools.map((t) => t.name)
    for (const name of ['echo', 'get-sum', 'trigger-long-running-operation']) {
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`)
    }
    assert.ok(names.includes('trigger-sampling-request'), 'registered for a sampling client')
  })

  it('calls echo and get-sum', async () => {
    const { client } = await connect(served.url)
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'hello burrow' } })
    assert.equal(textOf(echo), 'Echo: hello burrow')
    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } })
    assert.equal(textOf(sum), 'The sum of 2 and 40 is 42.')
  })

  it('streams progress notifications to onprogress', async () => {
    const { client } = await connect(served.url)
    const progress: number[] = []
    const result = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    )
    assert.deepEqual(progress, [1, 2, 3])
    assert.match(textOf(result), /Long running operation completed/)
  })

  it("answers the server's sampling request with the client's handler", async () => {
    const { client } = await connect(served.url)
    const result = await client.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'say hi', maxTokens: 12 },
    })
    assert.match(textOf(result), /sampled 12 tokens/)
  })

  it('serves two concurrent sessions that use the same JSON-RPC ids', async () => {
    const [a, b] = await Promise.all([connect(served.url), connect(served.url)])
    const [ea, eb, sa, sb] = await Promise.all([
      a.client.callTool({ name: 'echo', arguments: { message: 'from a' } }),
      b.client.callTool({ name: 'echo', arguments: { message: 'from b' } }),
      a.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 1 } }),
      b.client.callTool({ name: 'get-sum', arguments: { a: 5, b: 5 } }),
    ])
    assert.deepEqual(a.sentIds, b.sentIds)
    assert.deepEqual([textOf(ea), textOf(eb)], ['Echo: from a', 'Echo: from b'])
    assert.deepEqual(
      [textOf(sa), textOf(sb)],
      ['The sum of 1 and 1 is 2.', 'The sum of 5 and 5 is 10.'],
    )
  })

  it('answers malformed JSON with 400 and a -32700 error', async () => {
    const res = await post(served.url, '{"jsonrpc":"2.0",')
    assert.equal(res.status, 400)
    const body = (await res.json()) as { error: { code: number } }
    assert.equal(body.error.code, -32700)
  })

  it('refuses an id beyond 2^53 − 1 with 400, echoing its digits exactly', async () => {
    const digits = '9007199254740993'
    const res = await post(
      served.url,
      `{"jsonrpc":"2.0","id":${digits},"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"big","version":"1"}}}`,
    )
    assert.equal(res.status, 400)
    const text = await res.text()
    assert.match(text, new RegExp(`"id":${digits},`))
    const body = JSON.parse(text) as { error: { code: number; message: string } }
    assert.equal(body.error.code, -32600)
    assert.match(body.error.message, /within ±9007199254740991.*send a larger id as a string/)
    // The same id as a string is an id like any other.
    const asString = await post(served.url, {
      jsonrpc: '2.0',
      id: digits,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'b', version: '1' },
      },
    })
    assert.equal(asString.status, 200)
    assert.match(await asString.text(), new RegExp(`"id":"${digits}"`))
  })

  it('refuses a message that names a member twice with 400 and its id', async () => {
    const res = await post(
      served.url,
      '{"jsonrpc":"2.0","id":41,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"capabilities":{"sampling":{}},"clientInfo":{"name":"twice","version":"1"}}}',
    )
    assert.equal(res.status, 400)
    const body = (await res.json()) as { id: unknown; error: { code: number; message: string } }
    assert.equal(body.id, 41)
    assert.equal(body.error.code, -32600)
    assert.match(body.error.message, /the member "capabilities" appears twice in one object/)
  })

  it('ends a session on DELETE, after which its id gets 404', async () => {
    const { transport } = await connect(served.url)
    const sessionId = transport.sessionId
    assert.ok(sessionId)
    await transport.terminateSession()
    const res = await post(
      served.url,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { 'mcp-session-id': sessionId },
    )
    assert.equal(res.status, 404)
    await res.body?.cancel()
  })
})

describe('McpFront when the stdio server restarts', { timeout: 30_000 }, () => {
  it('gives old sessions 404 and serves a fresh client', async () => {
    const served = await serveStdioFront(everythingServer)
    try {
      const old = await connect(served.url)
      await old.client.callTool({ name: 'echo', arguments: { message: 'before' } })
      const restarted = once(served.supervisor, 'restart')
      process.kill(served.supervisor.pid!, 'SIGKILL')
      const [generation] = (await restarted) as [number]
      assert.equal(generation, 2)
      await assert.rejects(
        old.client.callTool({ name: 'echo', arguments: { message: 'after' } }),
        (err: unknown) => err instanceof StreamableHTTPError && err.code === 404,
      )
      const fresh = await connect(served.url)
      const echo = await fresh.client.callTool({ name: 'echo', arguments: { message: 'again' } })
      assert.equal(textOf(echo), 'Echo: again')
    } finally {
      await closeAgents()
      await served.close()
    }
  })
})
