// The agent's side of the end-to-end scenario, run with the official MCP SDK client against a
// tunnel's public URL: the same steps for every kind of upstream.
import assert from 'node:assert/strict'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { publicFetch } from './public-fetch.js'

/** An SDK client connected to `url`, able to answer sampling requests. */
export async function connectAgent(
  url: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: 'e2e-agent', version: '1.0.0' },
    { capabilities: { sampling: {} } },
  )
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const content = request.params.messages[0]?.content as
      { type?: string; text?: string } | undefined
    const text = content?.type === 'text' ? (content.text ?? '') : ''
    return {
      role: 'assistant',
      model: 'e2e-model',
      content: { type: 'text', text: `sampled: ${text}` },
    }
  })
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: publicFetch })
  await client.connect(transport)
  return { client, transport }
}

/** Text of a tool result's first content item. */
export function firstText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? []
  return content[0]?.type === 'text' ? (content[0].text ?? '') : ''
}

/** initialize, tools/list, echo, get-sum, progress over SSE, sampling answered by the agent. */
export async function exerciseEverything(client: Client): Promise<void> {
  const tools = await client.listTools()
  const names = tools.tools.map((t) => t.name)
  for (const name of [
    'echo',
    'get-sum',
    'trigger-long-running-operation',
    'trigger-sampling-request',
  ]) {
    assert.ok(names.includes(name), `tools/list lacks ${name}: ${names.join(', ')}`)
  }
  assert.equal(
    firstText(
      await client.callTool({ name: 'echo', arguments: { message: 'through the burrow' } }),
    ),
    'Echo: through the burrow',
  )
  assert.match(
    firstText(await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } })),
    /42/,
  )

  const progress: number[] = []
  const long = await client.callTool(
    { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 4 } },
    undefined,
    { onprogress: (p) => progress.push(p.progress) },
  )
  assert.match(firstText(long), /completed/i)
  assert.equal(progress.length, 4, `expected 4 progress notifications, got ${progress.join(',')}`)
  assert.deepEqual(
    progress,
    [...progress].sort((a, b) => a - b),
  )

  const sampled = await client.callTool({
    name: 'trigger-sampling-request',
    arguments: { prompt: 'hello', maxTokens: 10 },
  })
  assert.match(JSON.stringify(sampled), /sampled: .*hello/)
}

/** Status of a tools/list sent on `sessionId` (after DELETE it must be 404). */
export async function statusForSession(url: string, sessionId: string): Promise<number> {
  const res = await publicFetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
  })
  await res.arrayBuffer()
  return res.status
}
