/**
 * The aggregator as agents see it: SDK clients against McpFront + AggregatorBackend on a real
 * port, with three real upstreams (two stdio children and one Streamable HTTP server, all the
 * agg-paged-server fixture). Covers initialize, prefixing and pagination under our cursors,
 * routing of calls, prompts, resources and completions, unknown prefixes, fan-out, logging,
 * progress, cancellation, ids colliding between sessions and server→client requests.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { McpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js'
import {
  allTools,
  closeAllAggregators,
  connectAgent,
  startAggregator,
  startHttpFixture,
  textOf,
  until,
  type Aggregator,
} from './aggregator-harness.js'
import { MAX_SUBSCRIPTIONS_PER_SESSION } from '../../src/front/resource-subscriptions.js'

after(closeAllAggregators)

/** The McpError `promise` rejects with. */
async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise
  } catch (err) {
    if (err instanceof McpError) return err
    throw err
  }
  throw new Error('expected an MCP error')
}

const FIXED = [
  'echo',
  'add-tool',
  'ask',
  'roots',
  'slow',
  'pid',
  'crash',
  'log',
  'level',
  'counts',
  'touch',
]

describe('aggregator backend', { timeout: 60_000 }, () => {
  let agg: Aggregator

  before(async () => {
    const http = await startHttpFixture(['--label', 'c', '--page', '4'])
    agg = await startAggregator([
      { name: 'a', stdio: ['--label', 'a', '--tools', '12', '--page', '5'] },
      { name: 'b', stdio: ['--label', 'b', '--page', '50'] },
      { name: 'c', http: http.url },
    ])
  })

  it('answers initialize itself with merged capabilities and the upstreams listed', async () => {
    const { client } = await connectAgent(agg.url)
    assert.equal(client.getServerVersion()?.name, 'burrow-aggregator')
    const caps = client.getServerCapabilities()
    assert.deepEqual(caps?.tools, { listChanged: true })
    assert.deepEqual(caps?.prompts, { listChanged: true })
    assert.deepEqual(caps?.resources, { listChanged: true, subscribe: true })
    assert.deepEqual(caps?.logging, {})
    assert.deepEqual(caps?.completions, {})
    const instructions = client.getInstructions() ?? ''
    for (const name of ['a', 'b', 'c'])
      assert.match(instructions, new RegExp(`- ${name}: Fixture ${name}`))
    assert.match(instructions, /Fixture server b\./)
    assert.equal(await client.ping().then(() => 'pong'), 'pong')
  })

  it('lists every tool with its upstream prefix, every upstream on the first page', async () => {
    const { client } = await connectAgent(agg.url)
    const { names, pages } = await allTools(client)
    const generated = Array.from({ length: 12 }, (_, i) => `gen-${String(i).padStart(3, '0')}`)
    const expected = [
      ...[...FIXED, ...generated].map((t) => `a__${t}`),
      ...FIXED.map((t) => `b__${t}`),
      ...FIXED.map((t) => `c__${t}`),
    ]
    assert.deepEqual([...names].sort(), expected.sort())
    // a: 23 tools by 5 = 5 pages; b: 1 page; c: 11 tools by 4 = 3 pages; read side by side.
    assert.equal(pages, 5)
    const first = await client.listTools()
    const upstreamsSeen = new Set(first.tools.map((t) => t.name.split('__')[0]))
    assert.deepEqual([...upstreamsSeen], ['a', 'b', 'c'])
    assert.equal(first.tools.length, 5 + FIXED.length + 4)
    assert.ok(first.nextCursor && !first.nextCursor.includes('5'), 'the cursor is our own')
  })

  it('refuses a cursor it did not issue, or one issued for another list, with -32602', async () => {
    const { client } = await connectAgent(agg.url)
    const garbage = await rpcError(client.listTools({ cursor: 'not-ours!' }))
    assert.equal(garbage.code, -32602)
    const toolsCursor = (await client.listTools()).nextCursor
    assert.ok(toolsCursor)
    const mixed = await rpcError(client.listPrompts({ cursor: toolsCursor }))
    assert.equal(mixed.code, -32602)
    assert.match(mixed.message, /issued for tools\/list/)
  })

  it('routes tool calls by prefix, to stdio and HTTP upstreams alike', async () => {
    const { client } = await connectAgent(agg.url)
    for (const name of ['a', 'b', 'c']) {
      const result = await client.callTool({ name: `${name}__echo`, arguments: { text: 'hi' } })
      assert.equal(textOf(result), `${name}: hi`)
    }
    assert.equal(textOf(await client.callTool({ name: 'a__gen-011' })), 'a/gen-011')
  })

  it('answers an unknown prefix with -32602 naming the upstreams, and counts it', async () => {
    const { client } = await connectAgent(agg.url)
    const before = agg.metrics.count('unknownPrefix')
    for (const name of ['nosuch__x', 'echo']) {
      const err = await rpcError(client.callTool({ name, arguments: {} }))
      assert.equal(err.code, -32602)
      assert.match(err.message, new RegExp(`unknown tool "${name}"`))
      assert.match(err.message, /"a", "b", "c"/)
    }
    const prompt = await rpcError(client.getPrompt({ name: 'zz__greet' }))
    assert.equal(prompt.code, -32602)
    assert.equal(agg.metrics.count('unknownPrefix') - before, 3)
  })

  it('answers methods named like inherited properties with -32601', async () => {
    const { client } = await connectAgent(agg.url)
    for (const method of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const err = await rpcError(client.request({ method, params: {} }, ResultSchema))
      assert.equal(err.code, -32601, method)
    }
  })

  it('serves prompts by prefix', async () => {
    const { client } = await connectAgent(agg.url)
    const names = (await client.listPrompts()).prompts.map((p) => p.name)
    const all = [...names]
    let cursor = (await client.listPrompts()).nextCursor
    while (cursor) {
      const page = await client.listPrompts({ cursor })
      all.push(...page.prompts.map((p) => p.name))
      cursor = page.nextCursor
    }
    assert.deepEqual(all, ['a__greet', 'b__greet', 'c__greet'])
    const got = await client.getPrompt({ name: 'c__greet', arguments: { name: 'Ada' } })
    assert.deepEqual(got.messages[0]?.content, { type: 'text', text: 'Hello Ada from c' })
  })

  it('routes resources by URI: listed, by template, and unknown ones tried in turn', async () => {
    const { client } = await connectAgent(agg.url)
    const listed: string[] = []
    let cursor: string | undefined
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor })
      listed.push(...page.resources.map((r) => r.uri))
      cursor = page.nextCursor
    } while (cursor)
    assert.deepEqual(listed, ['mem://a/readme', 'mem://b/readme', 'mem://c/readme'])
    const read = async (uri: string) => {
      const result = await client.readResource({ uri })
      return (result.contents[0] as { text: string }).text
    }
    assert.equal(await read('mem://b/readme'), 'readme of b')
    assert.equal(await read('mem://c/items/7'), 'item 7 of c')
    assert.equal(await read('mem://b/hidden'), 'hidden of b')
    assert.equal(await read('mem://c/hidden'), 'hidden of c')
    const missing = await rpcError(client.readResource({ uri: 'mem://nowhere/x' }))
    assert.equal(missing.code, -32002)
    assert.match(missing.message, /tried "a", "b", "c"/)
    // One call, no cursor: every upstream's templates.
    const templates = await client.listResourceTemplates()
    assert.deepEqual(
      templates.resourceTemplates.map((t) => t.uriTemplate),
      ['mem://a/items/{id}', 'mem://b/items/{id}', 'mem://c/items/{id}'],
    )
    assert.equal(templates.nextCursor, undefined)
  })

  it('routes completions by prompt prefix and by resource template', async () => {
    const { client } = await connectAgent(agg.url)
    const byPrompt = await client.complete({
      ref: { type: 'ref/prompt', name: 'b__greet' },
      argument: { name: 'name', value: 'al' },
    })
    assert.deepEqual(byPrompt.completion.values, ['alice@b', 'albert@b'])
    const byTemplate = await client.complete({
      ref: { type: 'ref/resource', uri: 'mem://c/items/{id}' },
      argument: { name: 'id', value: '' },
    })
    assert.deepEqual(byTemplate.completion.values, ['1@c', '2@c', '3@c'])
  })

  it('fans logging/setLevel out and forwards log messages with the upstream in the logger', async () => {
    const agent = await connectAgent(agg.url)
    const fanouts = agg.metrics.count('fanout logging/setLevel')
    await agent.client.setLoggingLevel('warning')
    assert.equal(agg.metrics.count('fanout logging/setLevel'), fanouts + 1)
    for (const name of ['a', 'b', 'c']) {
      assert.equal(textOf(await agent.client.callTool({ name: `${name}__level` })), 'warning')
    }
    await agent.client.callTool({ name: 'b__log', arguments: { message: 'quiet' } })
    const core = { message: 'hello', logger: 'core', level: 'warning' }
    await agent.client.callTool({ name: 'b__log', arguments: core })
    await agent.client.callTool({ name: 'c__log', arguments: { message: 'bare', level: 'error' } })
    await until(() => agent.logs.length >= 2)
    assert.deepEqual(
      agent.logs.map((l) => [l.logger, l.data]),
      [
        ['b/core', 'hello'],
        ['c', 'bare'],
      ],
    )
  })

  it('keeps sessions apart although their ids collide', async () => {
    const one = await connectAgent(agg.url, 'one')
    const two = await connectAgent(agg.url, 'two')
    const calls = []
    for (let i = 0; i < 5; i++) {
      for (const [agent, who] of [
        [one, 'one'],
        [two, 'two'],
      ] as const) {
        const upstream = ['a', 'b', 'c'][i % 3]!
        calls.push(
          agent.client
            .callTool({ name: `${upstream}__echo`, arguments: { text: `${who}-${i}` } })
            .then((r) => [textOf(r), `${upstream}: ${who}-${i}`]),
        )
      }
    }
    for (const [got, want] of await Promise.all(calls)) assert.equal(got, want)
  })

  it('sends a sampling request to the session whose call caused it', async () => {
    const one = await connectAgent(agg.url, 'one')
    const two = await connectAgent(agg.url, 'two')
    await one.client.ping()
    for (const upstream of ['b', 'c']) {
      const result = await two.client.callTool({
        name: `${upstream}__ask`,
        arguments: { prompt: `q-${upstream}` },
      })
      assert.equal(textOf(result), `${upstream} got: two says: q-${upstream}`)
    }
    assert.deepEqual(two.sampled, ['q-b', 'q-c'])
    assert.deepEqual(one.sampled, [])
    const roots = await one.client.callTool({ name: 'a__roots' })
    assert.match(textOf(roots), /file:\/\/\/one/)
  })

  it("sends an HTTP upstream's question to the call whose stream carried it, and refuses a stdio one it cannot place", async () => {
    const one = await connectAgent(agg.url, 'one')
    const two = await connectAgent(agg.url, 'two')
    const outcomes: Record<string, string> = {}
    for (const upstream of ['c', 'b']) {
      let reached = (): void => {}
      const inUpstream = new Promise<void>((resolve) => (reached = resolve))
      const asking = two.client
        .callTool(
          { name: `${upstream}__ask`, arguments: { prompt: `late-${upstream}`, delayMs: 1_500 } },
          undefined,
          { onprogress: () => reached() },
        )
        .then(textOf, (err: Error) => err.message)
      await inUpstream
      // One's call starts later: it is the latest in flight at the upstream when the question
      // comes, and it is not the question's cause.
      const sleeping = one.client.callTool({
        name: `${upstream}__slow`,
        arguments: { ms: 2_500 },
      })
      outcomes[upstream] = await asking
      assert.equal(textOf(await sleeping), 'slept 2500 ms')
    }
    assert.equal(outcomes.c, 'c got: two says: late-c')
    assert.match(outcomes.b!, /calls of several agents are in flight at upstream "b"/)
    assert.deepEqual(two.sampled, ['late-c'])
    assert.deepEqual(one.sampled, [], 'the other agent never saw the question')
  })

  it('drops a server→client request that reuses the id of one still unanswered', async () => {
    const one = await connectAgent(agg.url, 'one')
    const result = await one.client.callTool({ name: 'a__dup-ask' })
    assert.equal(textOf(result), 'asked twice')
    await until(() =>
      agg.logger.lines.some((l) => /upstream "a" reused the id "dup"; ignored/.test(l)),
    )
  })

  it('refuses a server→client request for the caller when its agent lacks the capability', async () => {
    const plain = await connectAgent(agg.url, 'plain', {})
    const able = await connectAgent(agg.url, 'able')
    await able.client.ping()
    const err = await rpcError(
      plain.client.callTool({ name: 'b__ask', arguments: { prompt: 'x' } }),
    )
    assert.match(err.message, /did not declare the "sampling" capability/)
    assert.deepEqual(able.sampled, [], 'another agent did not answer in its place')
  })

  it('subscribes to resources once upstream and delivers updates to subscribers', async () => {
    const one = await connectAgent(agg.url, 'one')
    const updates: string[] = []
    const { ResourceUpdatedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js')
    one.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
      updates.push(n.params.uri)
    })
    await one.client.subscribeResource({ uri: 'mem://b/readme' })
    await agg.logger.waitFor(/\[b\] subscribe mem:\/\/b\/readme/)
    await one.client.callTool({ name: 'b__touch', arguments: { uri: 'mem://b/readme' } })
    await until(() => updates.length === 1)
    assert.deepEqual(updates, ['mem://b/readme'])
    // An agent that never subscribed cannot end another's subscription.
    const other = await connectAgent(agg.url, 'other')
    assert.deepEqual(await other.client.unsubscribeResource({ uri: 'mem://b/readme' }), {})
    await one.client.callTool({ name: 'b__touch', arguments: { uri: 'mem://b/readme' } })
    await until(() => updates.length === 2)
    assert.ok(!agg.logger.lines.some((l) => /\[b\] unsubscribe/.test(l)), 'not forwarded')
    await one.client.unsubscribeResource({ uri: 'mem://b/readme' })
    await agg.logger.waitFor(/\[b\] unsubscribe mem:\/\/b\/readme/)
  })

  it('refuses a session more subscriptions than the bound', async () => {
    const many = await connectAgent(agg.url, 'many')
    const uris = Array.from({ length: MAX_SUBSCRIPTIONS_PER_SESSION }, (_, i) => `mem://b/n-${i}`)
    for (let at = 0; at < uris.length; at += 100) {
      await Promise.all(
        uris.slice(at, at + 100).map((uri) => many.client.subscribeResource({ uri })),
      )
    }
    const refused = await rpcError(many.client.subscribeResource({ uri: 'mem://b/one-more' }))
    assert.equal(refused.code, -32000)
    assert.match(refused.message, /subscribed to 1000 resources/)
    assert.ok(!agg.logger.lines.some((l) => /subscribe mem:\/\/b\/one-more/.test(l)))
  })

  // Last: a cancelled call keeps its session counted for a moment when placing server→client
  // requests (see recent-cancels.ts), which would refuse the sampling tests above.
  it('relays progress with the agent token, and cancels upstream when the agent gives up', async () => {
    const { client } = await connectAgent(agg.url)
    for (const name of ['a', 'c']) {
      const progress: number[] = []
      const result = await client.callTool(
        { name: `${name}__slow`, arguments: { ms: 400, steps: 3 } },
        undefined,
        { onprogress: (p) => progress.push(p.progress) },
      )
      assert.equal(textOf(result), 'slept 400 ms')
      assert.deepEqual(progress, [1, 2, 3])
    }
    for (const name of ['b', 'c']) {
      const abort = new AbortController()
      const call = client.callTool(
        { name: `${name}__slow`, arguments: { ms: 10_000 } },
        undefined,
        { signal: abort.signal },
      )
      setTimeout(() => abort.abort('changed my mind'), 300)
      await assert.rejects(call)
    }
    await agg.logger.waitFor(/\[b\] cancelled/)
  })
})
