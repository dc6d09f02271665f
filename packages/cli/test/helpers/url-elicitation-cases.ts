/**
 * The cases URL-mode elicitations of a server shared by several agents must pass (a single stdio
 * server, or one of an aggregate's): the request goes only to an agent that declared URL mode,
 * and the server's `notifications/elicitation/complete` reaches only the agent the elicitation
 * went to, whether the server asked (`elicitation/create`) or answered a call with the
 * URL-elicitation-required error (-32042). The server is the agg-paged-server fixture.
 */
import assert from 'node:assert/strict'
import { after, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type { CaptureLogger } from './capture-logger.js'
import { textOf, until } from '../aggregator/aggregator-harness.js'

/** Where the fixture is served, and what names its tools there. */
export interface ElicitationTarget {
  readonly url: URL
  /** The name agents call the fixture's tool `name` by (an aggregate prefixes it). */
  readonly tool: (name: string) => string
  readonly logger: CaptureLogger
}

/** An SDK agent that accepts every elicitation and records what it was sent. */
interface ElicitingAgent {
  readonly client: Client
  /** Elicitation ids of the URL-mode requests it was sent. */
  readonly asked: string[]
  /** Elicitation ids of the completions it heard. */
  readonly completed: string[]
  /** tools/list_changed notifications heard. */
  listChanged: number
}

const clients = new Set<Client>()
after(() => Promise.all([...clients].map((c) => c.close().catch(() => {}))))

async function connect(url: URL, elicitation: Record<string, object>): Promise<ElicitingAgent> {
  const client = new Client({ name: 'agent', version: '1.0.0' }, { capabilities: { elicitation } })
  const agent: ElicitingAgent = { client, asked: [], completed: [], listChanged: 0 }
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params as { mode?: string; elicitationId?: string }
    if (params.mode === 'url') agent.asked.push(params.elicitationId ?? '')
    return { action: 'accept' }
  })
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (n) => {
    agent.completed.push(n.params.elicitationId)
  })
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    agent.listChanged += 1
  })
  await client.connect(new StreamableHTTPClientTransport(url))
  clients.add(client)
  return agent
}

/** Define the cases, each against `target()` (read when the case runs). */
export function urlElicitationCases(target: () => ElicitationTarget): void {
  /**
   * Have the server tell every session its tools changed, and wait until `agents` heard it: a
   * completion sent to them before it would have arrived first (one upstream's notifications
   * reach a session in order).
   */
  async function barrier(caller: ElicitingAgent, agents: ElicitingAgent[]): Promise<void> {
    const t = target()
    const seen = agents.map((a) => a.listChanged)
    await caller.client.callTool({ name: t.tool('add-tool') })
    await until(() => agents.every((a, i) => a.listChanged > seen[i]!))
  }

  it("sends a server's completion only to the agent its elicitation went to", async () => {
    const t = target()
    const one = await connect(t.url, { url: {} })
    const two = await connect(t.url, { form: {}, url: {} })
    await one.client.ping()
    const asked = await two.client.callTool({ name: t.tool('url-ask'), arguments: { id: 'el-1' } })
    assert.equal(textOf(asked), 'url accept')
    assert.deepEqual(two.asked, ['el-1'])
    const done = await two.client.callTool({ name: t.tool('url-done'), arguments: { id: 'el-1' } })
    assert.equal(textOf(done), 'done')
    await until(() => two.completed.length === 1)
    assert.deepEqual(two.completed, ['el-1'])
    await barrier(two, [one, two])
    assert.deepEqual(one.completed, [], 'the other agent never heard of it')
    assert.deepEqual(one.asked, [])
    // It completes once: a second completion of the same id reaches nobody.
    await two.client.callTool({ name: t.tool('url-done'), arguments: { id: 'el-1' } })
    await barrier(two, [one, two])
    assert.deepEqual(two.completed, ['el-1'])
    assert.deepEqual(one.completed, [])
  })

  it('sends the completion of a -32042 error to the agent whose call got the error', async () => {
    const t = target()
    const one = await connect(t.url, { url: {} })
    const two = await connect(t.url, { url: {} })
    await one.client.ping()
    const err = await two.client
      .callTool({ name: t.tool('url-required'), arguments: { id: 'el-2' } })
      .then(
        () => assert.fail('expected the URL-elicitation-required error'),
        (e: unknown) => e as McpError,
      )
    assert.equal(err.code, -32042)
    const data = err.data as { elicitations: { elicitationId: string }[] }
    assert.equal(data.elicitations[0]?.elicitationId, 'el-2')
    await two.client.callTool({ name: t.tool('url-done'), arguments: { id: 'el-2' } })
    await until(() => two.completed.length === 1)
    assert.deepEqual(two.completed, ['el-2'])
    await barrier(two, [one, two])
    assert.deepEqual(one.completed, [])
  })

  it('drops a completion of an elicitation no agent was sent', async () => {
    const t = target()
    const one = await connect(t.url, { url: {} })
    await one.client.callTool({ name: t.tool('url-done'), arguments: { id: 'never-asked' } })
    await barrier(one, [one])
    assert.deepEqual(one.completed, [])
    await t.logger.waitFor(/completion of an elicitation no agent holds/)
  })

  it('refuses a URL-mode elicitation for an agent that declared forms only', async () => {
    const t = target()
    const forms = await connect(t.url, {})
    const urls = await connect(t.url, { url: {} })
    await urls.client.ping()
    const asked = await forms.client.callTool({
      name: t.tool('url-ask'),
      arguments: { id: 'el-3' },
    })
    assert.match(textOf(asked), /url refused: .*did not declare the "elicitation\.url" capability/)
    assert.deepEqual(forms.asked, [])
    assert.deepEqual(urls.asked, [], 'not sent to another agent in its place')
  })

  it('sends a form only to an agent that declared forms', async () => {
    const t = target()
    const urlsOnly = await connect(t.url, { url: {} })
    const asked = await urlsOnly.client.callTool({ name: t.tool('form-ask') })
    assert.match(
      textOf(asked),
      /form refused: .*did not declare the "elicitation\.form" capability/,
    )
    const forms: Record<string, object>[] = [{}, { form: {} }, { form: {}, url: {} }]
    for (const declared of forms) {
      const able = await connect(t.url, declared)
      const answered = await able.client.callTool({ name: t.tool('form-ask') })
      assert.equal(textOf(answered), 'form accept', JSON.stringify(declared))
    }
  })

  it("forgets a session's elicitations when it ends", async () => {
    const t = target()
    const gone = await connect(t.url, { url: {} })
    const stays = await connect(t.url, { url: {} })
    await stays.client.ping()
    await gone.client.callTool({ name: t.tool('url-ask'), arguments: { id: 'el-4' } })
    await gone.client.close()
    clients.delete(gone.client)
    await stays.client.callTool({ name: t.tool('url-done'), arguments: { id: 'el-4' } })
    await barrier(stays, [stays])
    assert.deepEqual(stays.completed, [])
  })
}
