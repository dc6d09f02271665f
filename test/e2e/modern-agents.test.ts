// Agents of both eras through real burrowd and burrow processes: the v2 SDK client pinned to
// 2026-07-28 and in `auto` mode, and the v1 client, against a v2 SDK server over HTTP (relayed as
// is) and over stdio, server-everything over stdio (a 2025 server), and the two stdio servers
// aggregated with each other, and the v2 server over HTTP aggregated with server-everything (calls
// and progress then cross to each kind of server in the aggregator). Each lists, calls, follows
// progress and answers an elicitation (and, from server-everything, sampling and roots); for
// 2026-07-28 agents of a 2025 stdio server those requests cross burrow's input_required bridge.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startChild, type Child } from '../helpers/child.js'
import {
  connectEraAgent,
  ELICITED_NAME,
  ROOT_NAME,
  SAMPLED_TEXT,
  type AgentKind,
} from '../helpers/era-agents.js'
import { freePort } from '../helpers/free-port.js'
import { EVERYTHING, ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const V2_SERVER = `${ROOT}test/fixtures/v2-sdk-server.mjs`
const AGENTS: readonly AgentKind[] = ['v2-pinned', 'v2-auto', 'v1']

/** What one layout offers: tool names and arguments, and what the answers look like. */
interface Layout {
  readonly name: string
  readonly up: (service: Service) => Promise<readonly string[]>
  readonly echo: { tool: string; args: Record<string, unknown>; text: (kind: AgentKind) => RegExp }
  readonly progress: { tool: string; args: Record<string, unknown>; steps: number }
  readonly elicit: { tool: string; text: RegExp; agents: readonly AgentKind[] }
  /** Tools that make the server ask the agent to sample and to list its roots, where it has them. */
  readonly asks?: { sampling: string; roots: string }
}

let httpUpstream: Child | undefined

const v2Tools = (prefix: string) => ({
  echo: {
    tool: `${prefix}echo`,
    args: { text: 'hi' },
    text: (): RegExp => /^legacy: hi$/, // burrow speaks 2025 to the server behind the front
  },
  progress: { tool: `${prefix}progress`, args: { steps: 3 }, steps: 3 },
  elicit: {
    tool: `${prefix}ask_name`,
    text: new RegExp(`^hello ${ELICITED_NAME}$`),
    agents: AGENTS,
  },
})

const everythingTools = (prefix: string) => ({
  echo: { tool: `${prefix}echo`, args: { message: 'hi' }, text: (): RegExp => /^Echo: hi$/ },
  progress: {
    tool: `${prefix}trigger-long-running-operation`,
    args: { duration: 0.3, steps: 3 },
    steps: 3,
  },
  elicit: {
    tool: `${prefix}trigger-elicitation-request`,
    text: new RegExp(`Name: ${ELICITED_NAME}`),
    agents: AGENTS,
  },
})

const LAYOUTS: readonly Layout[] = [
  {
    name: 'single HTTP upstream (a v2 SDK server, relayed as is)',
    async up() {
      const port = await freePort()
      httpUpstream = startChild(process.execPath, [V2_SERVER, '--http'], {
        env: { ...process.env, PORT: String(port) },
      })
      await httpUpstream.waitFor(/listening on/)
      return ['--upstream', `http://127.0.0.1:${port}/mcp`]
    },
    ...v2Tools(''),
    echo: {
      tool: 'echo',
      args: { text: 'hi' },
      text: (kind) => (kind === 'v1' ? /^legacy: hi$/ : /^modern: hi$/),
    },
    // A stateless 2025 serving cannot carry a server→client request to the v1 client.
    elicit: { ...v2Tools('').elicit, agents: ['v2-pinned', 'v2-auto'] },
  },
  {
    name: 'single stdio server (the v2 SDK server)',
    up: async () => ['--stdio', `node "${V2_SERVER}"`],
    ...v2Tools(''),
  },
  {
    name: 'single stdio server (server-everything)',
    up: async () => ['--stdio', `node "${EVERYTHING}" stdio`],
    ...everythingTools(''),
    asks: { sampling: 'trigger-sampling-request', roots: 'get-roots-list' },
  },
  {
    name: 'aggregator (server-everything and the v2 SDK server over stdio)',
    up: async () => ['--stdio', `a=node "${EVERYTHING}" stdio`, '--stdio', `b=node "${V2_SERVER}"`],
    ...everythingTools('a__'),
    elicit: v2Tools('b__').elicit,
    asks: { sampling: 'a__trigger-sampling-request', roots: 'a__get-roots-list' },
  },
  {
    name: 'aggregator (the v2 SDK server over HTTP and server-everything over stdio)',
    async up() {
      const port = await freePort()
      httpUpstream = startChild(process.execPath, [V2_SERVER, '--http'], {
        env: { ...process.env, PORT: String(port) },
      })
      await httpUpstream.waitFor(/listening on/)
      return [
        '--upstream',
        `b=http://127.0.0.1:${port}/mcp`,
        '--stdio',
        `a=node "${EVERYTHING}" stdio`,
      ]
    },
    ...v2Tools('b__'),
    elicit: everythingTools('a__').elicit,
  },
]

describe('2026-07-28 and 2025 agents side by side', () => {
  let service: Service

  before(async () => {
    service = await startService({}, { plan: 'scale' })
  })
  after(async () => {
    await service?.close()
  })

  for (const layout of LAYOUTS) {
    describe(layout.name, () => {
      let cli: Child | undefined
      let url = ''

      before(async () => {
        const tunnel = await service.tunnel()
        cli = await startClient(service, tunnel.key, await layout.up(service))
        url = tunnel.url
      })
      after(async () => {
        await cli?.stop()
        await httpUpstream?.stop()
        httpUpstream = undefined
      })

      for (const kind of AGENTS) {
        it(`${kind}: lists, calls, follows progress and answers elicitation`, async () => {
          const agent = await connectEraAgent(kind, url)
          try {
            assert.equal(agent.era, kind === 'v1' ? 'legacy' : 'modern')
            const { names } = await agent.listTools()
            for (const tool of [layout.echo.tool, layout.progress.tool, layout.elicit.tool]) {
              assert.ok(names.includes(tool), `${tool} not in ${names.join(', ')}`)
            }
            assert.match(
              await agent.call(layout.echo.tool, layout.echo.args),
              layout.echo.text(kind),
            )
            const progressed = await agent.callWithProgress(
              layout.progress.tool,
              layout.progress.args,
            )
            assert.deepEqual(
              progressed.progress,
              Array.from({ length: layout.progress.steps }, (_, i) => i + 1),
            )
            if (layout.elicit.agents.includes(kind)) {
              assert.match(await agent.call(layout.elicit.tool), layout.elicit.text)
              assert.equal(agent.elicited(), 1)
            }
            if (layout.asks) {
              // Sampling and roots asked by a 2025 stdio server: for 2026-07-28 agents they
              // cross burrow's input_required bridge too.
              const sampled = await agent.call(layout.asks.sampling, {
                prompt: 'say hi',
                maxTokens: 20,
              })
              assert.ok(sampled.includes(SAMPLED_TEXT), sampled)
              assert.ok(agent.sampled() >= 1)
              // server-everything keeps the roots it was told per process: the first agent
              // of a layout answers roots/list, the others read them back.
              const roots = await agent.call(layout.asks.roots)
              assert.ok(roots.includes(ROOT_NAME), roots)
              if (kind === AGENTS[0]) assert.ok(agent.rootsListed() >= 1)
            }
          } finally {
            await agent.close()
          }
        })
      }
    })
  }

  it('aggregator: one tools/list call without a cursor returns the tools of both upstreams', async () => {
    const tunnel = await service.tunnel()
    const cli = await startClient(service, tunnel.key, [
      '--stdio',
      `a=node "${EVERYTHING}" stdio`,
      '--stdio',
      `b=node "${V2_SERVER}"`,
    ])
    try {
      for (const kind of AGENTS) {
        const agent = await connectEraAgent(kind, tunnel.url)
        const { names } = await agent.listTools()
        await agent.close()
        assert.ok(
          names.includes('a__echo') && names.includes('b__echo'),
          `${kind}: ${names.join(', ')}`,
        )
      }
    } finally {
      await cli.stop()
    }
  })
})
