/**
 * URL-mode elicitations through the aggregator (a stdio upstream, SDK agents): the request goes
 * only to an agent that declared URL mode, and the server's `notifications/elicitation/complete`
 * reaches only the agent the elicitation went to, whether the server asked (`elicitation/create`)
 * or answered a call with the URL-elicitation-required error (-32042). Before, the completion
 * reached every session. Also the memory's bounds (`UrlElicitations`).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import {
  closeAllAggregators,
  startAggregator,
  textOf,
  until,
  type Aggregator,
} from './aggregator-harness.js'
import {
  MAX_ELICITATION_ID_LENGTH,
  requiredUrlElicitations,
  UrlElicitations,
} from '../../src/aggregator/url-elicitations.js'

after(closeAllAggregators)

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

describe('URL-mode elicitations through the aggregator', { timeout: 60_000 }, () => {
  let agg: Aggregator

  before(async () => {
    agg = await startAggregator([{ name: 'b', stdio: ['--label', 'b'] }])
  })

  /**
   * Have upstream b tell every session its tools changed, and wait until `agents` heard it: a
   * completion sent to them before it would have arrived first (one upstream's notifications
   * reach a session in order).
   */
  async function barrier(caller: ElicitingAgent, agents: ElicitingAgent[]): Promise<void> {
    const seen = agents.map((a) => a.listChanged)
    await caller.client.callTool({ name: 'b__add-tool' })
    await until(() => agents.every((a, i) => a.listChanged > seen[i]!))
  }

  it("sends a server's completion only to the agent its elicitation went to", async () => {
    const one = await connect(agg.url, { url: {} })
    const two = await connect(agg.url, { form: {}, url: {} })
    await one.client.ping()
    const asked = await two.client.callTool({ name: 'b__url-ask', arguments: { id: 'el-1' } })
    assert.equal(textOf(asked), 'url accept')
    assert.deepEqual(two.asked, ['el-1'])
    const done = await two.client.callTool({ name: 'b__url-done', arguments: { id: 'el-1' } })
    assert.equal(textOf(done), 'done')
    await until(() => two.completed.length === 1)
    assert.deepEqual(two.completed, ['el-1'])
    await barrier(two, [one, two])
    assert.deepEqual(one.completed, [], 'the other agent never heard of it')
    assert.deepEqual(one.asked, [])
    // It completes once: a second completion of the same id reaches nobody.
    await two.client.callTool({ name: 'b__url-done', arguments: { id: 'el-1' } })
    await barrier(two, [one, two])
    assert.deepEqual(two.completed, ['el-1'])
    assert.deepEqual(one.completed, [])
  })

  it('sends the completion of a -32042 error to the agent whose call got the error', async () => {
    const one = await connect(agg.url, { url: {} })
    const two = await connect(agg.url, { url: {} })
    await one.client.ping()
    const err = await two.client
      .callTool({ name: 'b__url-required', arguments: { id: 'el-2' } })
      .then(
        () => assert.fail('expected the URL-elicitation-required error'),
        (e: unknown) => e as McpError,
      )
    assert.equal(err.code, -32042)
    const data = err.data as { elicitations: { elicitationId: string }[] }
    assert.equal(data.elicitations[0]?.elicitationId, 'el-2')
    await two.client.callTool({ name: 'b__url-done', arguments: { id: 'el-2' } })
    await until(() => two.completed.length === 1)
    assert.deepEqual(two.completed, ['el-2'])
    await barrier(two, [one, two])
    assert.deepEqual(one.completed, [])
  })

  it('drops a completion of an elicitation no agent was sent', async () => {
    const one = await connect(agg.url, { url: {} })
    await one.client.callTool({ name: 'b__url-done', arguments: { id: 'never-asked' } })
    await barrier(one, [one])
    assert.deepEqual(one.completed, [])
    await agg.logger.waitFor(/completion of an elicitation no agent holds/)
  })

  it('refuses a URL-mode elicitation for an agent that declared forms only', async () => {
    const forms = await connect(agg.url, {})
    const urls = await connect(agg.url, { url: {} })
    await urls.client.ping()
    const asked = await forms.client.callTool({ name: 'b__url-ask', arguments: { id: 'el-3' } })
    assert.match(textOf(asked), /url refused: .*did not declare the "elicitation\.url" capability/)
    assert.deepEqual(forms.asked, [])
    assert.deepEqual(urls.asked, [], 'not sent to another agent in its place')
  })

  it('sends a form only to an agent that declared forms', async () => {
    const urlsOnly = await connect(agg.url, { url: {} })
    const asked = await urlsOnly.client.callTool({ name: 'b__form-ask' })
    assert.match(
      textOf(asked),
      /form refused: .*did not declare the "elicitation\.form" capability/,
    )
    const forms: Record<string, object>[] = [{}, { form: {} }, { form: {}, url: {} }]
    for (const declared of forms) {
      const able = await connect(agg.url, declared)
      const answered = await able.client.callTool({ name: 'b__form-ask' })
      assert.equal(textOf(answered), 'form accept', JSON.stringify(declared))
    }
  })

  it("forgets a session's elicitations when it ends", async () => {
    const gone = await connect(agg.url, { url: {} })
    const stays = await connect(agg.url, { url: {} })
    await stays.client.ping()
    await gone.client.callTool({ name: 'b__url-ask', arguments: { id: 'el-4' } })
    await gone.client.close()
    clients.delete(gone.client)
    await stays.client.callTool({ name: 'b__url-done', arguments: { id: 'el-4' } })
    await barrier(stays, [stays])
    assert.deepEqual(stays.completed, [])
  })
})

describe('UrlElicitations', () => {
  const agent = (sessionId: string) => ({ sessionId, relatedTo: undefined })

  it('keeps each upstream apart, and gives each elicitation once', () => {
    const memory = new UrlElicitations()
    memory.note('a', 'x', agent('s1'))
    memory.note('b', 'x', agent('s2'))
    assert.equal(memory.take('b', 'x')?.sessionId, 's2')
    assert.equal(memory.take('b', 'x'), undefined)
    assert.equal(memory.take('a', 'x')?.sessionId, 's1')
    assert.equal(memory.size, 0)
  })

  it('forgets the oldest past its bound, and ids that are not strings or too long', () => {
    const memory = new UrlElicitations(3)
    for (const id of ['1', '2', '3', '4']) memory.note('a', id, agent(`s${id}`))
    assert.equal(memory.size, 3)
    assert.equal(memory.take('a', '1'), undefined)
    assert.equal(memory.take('a', '4')?.sessionId, 's4')
    for (const id of [7, null, '', 'x'.repeat(MAX_ELICITATION_ID_LENGTH + 1)]) {
      memory.note('a', id, agent('s'))
      assert.equal(memory.take('a', id), undefined)
    }
    assert.equal(memory.size, 2)
  })

  it("drops a session's elicitations", () => {
    const memory = new UrlElicitations()
    memory.note('a', 'x', agent('s1'))
    memory.note('a', 'y', agent('s2'))
    memory.dropSession('s1')
    assert.equal(memory.take('a', 'x'), undefined)
    assert.equal(memory.take('a', 'y')?.sessionId, 's2')
  })

  it('reads the URL-mode ids of a -32042 error, and nothing of other errors', () => {
    const elicitations = [
      { mode: 'url', elicitationId: 'e1' },
      { mode: 'form', elicitationId: 'e2' },
      { mode: 'url', elicitationId: 3 },
      null,
      'junk',
    ]
    assert.deepEqual(requiredUrlElicitations({ code: -32042, data: { elicitations } }), ['e1'])
    assert.deepEqual(requiredUrlElicitations({ code: -32603, data: { elicitations } }), [])
    assert.deepEqual(requiredUrlElicitations({ code: -32042, data: { elicitations: 'x' } }), [])
    assert.deepEqual(requiredUrlElicitations({ code: -32042 }), [])
  })
})
