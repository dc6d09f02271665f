// End to end through real burrowd and burrow processes in aggregator mode: `burrow up` with two
// stdio upstreams (server-everything, each writing its pid to its own file) and one Streamable
// HTTP upstream (server-everything streamableHttp), with official SDK clients as the agents.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  CreateMessageRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { firstText } from '../helpers/agent-scenario.js'
import { startChild, type Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { EVERYTHING, ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** An SDK agent through the tunnel that records the sampling requests it answers. */
interface Agent {
  readonly client: Client
  readonly sampled: string[]
  listChanged: number
}

async function connect(url: string, name: string): Promise<Agent> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { sampling: {} } })
  const agent: Agent = { client, sampled: [], listChanged: 0 }
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const content = request.params.messages[0]?.content as { text?: string } | undefined
    agent.sampled.push(content?.text ?? '')
    return {
      role: 'assistant',
      model: 'e2e-model',
      content: { type: 'text', text: `${name} says: ${content?.text ?? ''}` },
    }
  })
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    agent.listChanged += 1
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: publicFetch }))
  return agent
}

/** Every tool name, following the aggregator's cursors. */
async function allTools(client: Client): Promise<string[]> {
  const names: string[] = []
  let cursor: string | undefined
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor })
    names.push(...page.tools.map((t) => t.name))
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return names
}

describe('aggregator mode: two stdio upstreams and one HTTP upstream', () => {
  let service: Service
  let httpUpstream: Child
  let cli: Child
  let url: string
  let dir: string
  const agents: Agent[] = []
  const pidOf = (name: string) => Number(readFileSync(join(dir, `${name}.pid`), 'utf8'))
  const agent = async (name: string) => {
    const a = await connect(url, name)
    agents.push(a)
    return a
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'burrow-agg-'))
    const port = await freePort()
    httpUpstream = startChild(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
    })
    await httpUpstream.waitFor(/listening|port/i)
    // Pro: the tests keep up to six agent sessions open at once (Free allows three).
    service = await startService({}, { plan: 'pro' })
    const tunnel = await service.tunnel('toolbox')
    url = tunnel.url
    const fixture = join(ROOT, 'test/fixtures/agg-everything-with-pid.mjs')
    cli = await startClient(service, tunnel.key, [
      '--stdio',
      `a=node "${fixture}" "${join(dir, 'a.pid')}"`,
      '--stdio',
      `b=node "${fixture}" "${join(dir, 'b.pid')}"`,
      '--upstream',
      `c=http://127.0.0.1:${port}/mcp`,
      '--name',
      'toolbox',
    ])
  })

  after(async () => {
    await Promise.all(agents.map((a) => a.client.close().catch(() => {})))
    await cli?.stop()
    await httpUpstream?.stop()
    await service?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('lists the tools of every upstream with its prefix and calls each', async () => {
    const { client } = await agent('lister')
    assert.equal(client.getServerVersion()?.name, 'burrow-aggregator')
    const names = await allTools(client)
    for (const upstream of ['a', 'b', 'c']) {
      for (const tool of ['echo', 'get-sum', 'trigger-sampling-request']) {
        assert.ok(
          names.includes(`${upstream}__${tool}`),
          `no ${upstream}__${tool}: ${names.join(', ')}`,
        )
      }
    }
    assert.ok(!names.some((n) => !/^[abc]__/.test(n)), 'every name is prefixed')
    for (const upstream of ['a', 'b', 'c']) {
      const echoed = await client.callTool({
        name: `${upstream}__echo`,
        arguments: { message: `via ${upstream}` },
      })
      assert.equal(firstText(echoed), `Echo: via ${upstream}`)
    }
    const sum = await client.callTool({ name: 'c__get-sum', arguments: { a: 2, b: 40 } })
    assert.match(firstText(sum), /42/)
  })

  it('serves a prompt by prefix and resources by URI', async () => {
    const { client } = await agent('reader')
    const prompt = await client.getPrompt({ name: 'b__simple-prompt' })
    assert.deepEqual(prompt.messages[0]?.content, {
      type: 'text',
      text: 'This is a simple prompt without arguments.',
    })
    const listed = await client.listResources()
    const first = listed.resources[0]
    assert.ok(first, 'the first page lists a resource')
    const read = await client.readResource({ uri: first.uri })
    assert.equal(read.contents[0]?.uri, first.uri)
    const dynamic = await client.readResource({ uri: 'demo://resource/dynamic/text/2' })
    assert.match((dynamic.contents[0] as { text: string }).text, /^Resource 2:/)
  })

  it('answers an unknown prefix with -32602 naming the upstreams', async () => {
    const { client } = await agent('typo')
    const err = await client.callTool({ name: 'nosuch__echo', arguments: {} }).then(
      () => assert.fail('an unknown prefix was accepted'),
      (e: unknown) => e as McpError,
    )
    assert.equal(err.code, -32602)
    assert.match(err.message, /"a", "b", "c"/)
  })

  it('sends each sampling request to the agent session whose call caused it', async () => {
    const one = await agent('one')
    const two = await agent('two')
    const [fromB, fromC] = await Promise.all([
      two.client.callTool({
        name: 'b__trigger-sampling-request',
        arguments: { prompt: 'for two', maxTokens: 10 },
      }),
      one.client.callTool({
        name: 'c__trigger-sampling-request',
        arguments: { prompt: 'for one', maxTokens: 10 },
      }),
    ])
    assert.match(JSON.stringify(fromB), /two says: .*for two/)
    assert.match(JSON.stringify(fromC), /one says: .*for one/)
    assert.equal(two.sampled.length, 1)
    assert.match(two.sampled[0]!, /for two/)
    assert.equal(one.sampled.length, 1)
    assert.match(one.sampled[0]!, /for one/)
  })

  it('keeps serving the others while one stdio upstream is killed, then brings it back', async () => {
    const watcher = await agent('watcher')
    const pid = pidOf('a')
    const changes = watcher.listChanged
    process.kill(pid, 'SIGKILL')
    const failure = await watcher.client
      .callTool({ name: 'a__echo', arguments: { message: 'x' } })
      .then(
        () => undefined,
        (e: unknown) => e as McpError,
      )
    assert.ok(failure, 'a call right after the kill fails')
    assert.match(failure.message, /upstream "a"/)
    const sum = await watcher.client.callTool({ name: 'c__get-sum', arguments: { a: 1, b: 1 } })
    assert.match(firstText(sum), /2/)
    const echoed = await watcher.client.callTool({ name: 'b__echo', arguments: { message: 'b' } })
    assert.equal(firstText(echoed), 'Echo: b')

    let back = false
    for (let i = 0; i < 100 && !back; i++) {
      await sleep(200)
      back = await watcher.client
        .callTool({ name: 'a__echo', arguments: { message: 'again' } })
        .then(
          (r) => firstText(r) === 'Echo: again',
          () => false,
        )
    }
    assert.ok(back, 'a answers again after its restart')
    assert.notEqual(pidOf('a'), pid)
    assert.ok(watcher.listChanged > changes, 'the agent was told the tools changed')
    assert.ok((await allTools(watcher.client)).includes('a__echo'))
    assert.match(cli.stderr, /upstream "a" is unavailable/)
    assert.match(cli.stderr, /upstream "a" is available again/)
  })
})
