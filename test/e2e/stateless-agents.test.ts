/**
 * How the edge counts and caps 2026-07-28 agents, which have no sessions, through real burrowd
 * and `burrow up` processes (a v2 SDK server over stdio behind the front's input_required
 * bridge): a call that asks for input and its retry carrying `requestState` are one tool call,
 * linked in the history; a forged or replayed `requestState` is a new call, counted; in-flight
 * sessionless requests and open `subscriptions/listen` streams hold the plan's session places
 * (Free: 3), in use, so that a 2025 initialize is refused too, and a place comes back when its
 * stream ends; a 2025 header in
 * front of a 2026-07-28 body is served as the body says.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { answerOf, SseReader } from '../../packages/cli/test/helpers/raw-mcp.js'
import type { Child } from '../helpers/child.js'
import { connectEraAgent, ELICITED_NAME } from '../helpers/era-agents.js'
import { sendModern as send } from '../helpers/modern-request.js'
import { initializeMessage, liveCounter, postMcp, usageSet } from '../helpers/quota-stack.js'
import { BURROWD, ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)
const V2_SERVER = `${ROOT}test/fixtures/v2-sdk-server.mjs`

interface CallJson {
  id: string
  tool: string | null
  rpc_id: unknown
  continues: string | null
}

async function until<T>(read: () => Promise<T>, check: (v: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (check(value) || Date.now() > deadline) return value
    await new Promise((r) => setTimeout(r, 200))
  }
}

describe(
  '2026-07-28 agents: one call per user action, places while in flight',
  {
    timeout: 120_000,
  },
  () => {
    let service: Service
    let cli: Child
    let tunnel: { id: string; url: string }
    let token: string

    const calls = async () => {
      const res = await fetch(
        `http://127.0.0.1:${service.port}/api/tunnels/${tunnel.id}/calls?tool=ask_name`,
        { headers: { authorization: `Bearer ${token}` } },
      )
      assert.equal(res.status, 200)
      return ((await res.json()) as { calls: CallJson[] }).calls
    }
    const counted = () => liveCounter(service, tunnel.id, 'tool_calls')

    before(async () => {
      service = await startService({ BURROW_LOG: 'info' })
      const made = await service.tunnel('modern')
      tunnel = { id: made.id, url: made.url }
      cli = await startClient(service, made.key, ['--stdio', `node "${V2_SERVER}"`])
      const { stdout } = await run(
        process.execPath,
        [BURROWD, 'token', 'create', '--account', 'acme', '--json'],
        { env: service.env },
      )
      token = (JSON.parse(stdout) as { token: string }).token
    })

    after(async () => {
      await cli?.stop()
      await service?.close()
    })

    it('counts a call and its requestState retry once, and links them in the history', async () => {
      const before = await counted()
      const first = (await answerOf(
        await send(tunnel.url, 1, 'tools/call', { name: 'ask_name', arguments: {} }),
      )) as {
        result: { resultType: string; requestState: string; inputRequests: Record<string, unknown> }
      }
      assert.equal(first.result.resultType, 'input_required')
      const keys = Object.keys(first.result.inputRequests)
      const inputResponses = Object.fromEntries(
        keys.map((k) => [k, { action: 'accept', content: { name: ELICITED_NAME } }]),
      )
      const retry = (await answerOf(
        await send(tunnel.url, 2, 'tools/call', {
          name: 'ask_name',
          arguments: {},
          inputResponses,
          requestState: first.result.requestState,
        }),
      )) as { result: { content: { text: string }[] } }
      assert.equal(retry.result.content[0]!.text, `hello ${ELICITED_NAME}`)
      assert.equal(await counted(), before + 1, 'one user action, one tool call')

      const rows = await until(calls, (c) => c.length >= 2)
      const [newer, older] = rows
      assert.equal(older!.continues, null)
      assert.equal(newer!.continues, older!.id, 'the retry names the call it continues')

      // Replaying the used requestState, or one the edge never handed out, is a new call.
      const replayed = await counted()
      await answerOf(
        await send(tunnel.url, 3, 'tools/call', {
          name: 'ask_name',
          arguments: {},
          inputResponses,
          requestState: first.result.requestState,
        }),
      )
      await answerOf(
        await send(tunnel.url, 4, 'tools/call', {
          name: 'ask_name',
          arguments: {},
          inputResponses,
          requestState: 'forged-state',
        }),
      )
      assert.equal(await counted(), replayed + 2)
    })

    it('the official v2 client pinned to 2026-07-28 answers through the bridge, counted once', async () => {
      const before = await counted()
      const agent = await connectEraAgent('v2-pinned', tunnel.url)
      try {
        assert.equal(await agent.call('ask_name'), `hello ${ELICITED_NAME}`)
        assert.equal(agent.elicited(), 1)
      } finally {
        await agent.close()
      }
      assert.equal(await counted(), before + 1)
    })

    it('in-flight requests and listen streams take session places, and give them back', async () => {
      const streams: AbortController[] = []
      const listen = async (id: string) => {
        const controller = new AbortController()
        const res = await send(
          tunnel.url,
          id,
          'subscriptions/listen',
          { notifications: { toolsListChanged: true } },
          { signal: controller.signal },
        )
        assert.equal(res.status, 200)
        await new SseReader(res).next() // the acknowledgement: the stream is open
        streams.push(controller)
      }
      try {
        await listen('L1')
        await listen('L2')
        await listen('L3')
        const refused = await send(tunnel.url, 'over', 'tools/list')
        assert.equal(refused.status, 429)
        assert.equal(refused.headers.get('x-burrow-error'), 'session_limit')
        const body = (await refused.json()) as { id: unknown; error: { data: { reason: string } } }
        assert.equal(body.id, 'over', 'the refusal carries the refused id')
        assert.match(body.error.data.reason, /requests and subscription streams in flight/)
        const legacyRefused = await postMcp(tunnel.url, initializeMessage('legacy-2'))
        assert.equal(legacyRefused.status, 429, 'and a 2025 initialize is refused the same')

        streams.shift()!.abort()
        const served = await until(
          async () => (await send(tunnel.url, 'after', 'tools/list')).status,
          (status) => status === 200,
        )
        assert.equal(served, 200, 'the place of a closed stream comes back')
      } finally {
        for (const s of streams) s.abort()
      }
    })

    it('counts and refuses 2026-07-28 calls exactly like 2025 ones: limit − 1, then 429', async () => {
      const FREE_CALLS = 100_000
      await until(
        async () => (await send(tunnel.url, 'wait', 'tools/list')).status,
        (status) => status === 200,
      )
      await usageSet(service, tunnel.id, ['--tool-calls', String(FREE_CALLS - 1)])
      const agent = await connectEraAgent('v2-pinned', tunnel.url)
      try {
        assert.equal(agent.era, 'modern')
        assert.match(await agent.call('echo', { text: 'last' }), /last/)
        assert.equal(await counted(), FREE_CALLS)
        await assert.rejects(agent.call('echo', { text: 'over' }))
        const refused = await send(tunnel.url, 'over', 'tools/call', {
          name: 'echo',
          arguments: { text: 'over' },
        })
        assert.equal(refused.status, 429)
        assert.equal(refused.headers.get('x-burrow-error'), 'quota_exceeded')
        assert.ok(refused.headers.get('retry-after'))
        const body = (await refused.json()) as {
          id: unknown
          error: { data: { policy_code: string } }
        }
        assert.equal(body.id, 'over')
        assert.equal(body.error.data.policy_code, 'quota_exceeded')
        assert.equal(await counted(), FREE_CALLS, 'refused calls are not counted')
        const list = await send(tunnel.url, 'list', 'tools/list')
        assert.equal(list.status, 200, 'what is not a tool call still passes')
      } finally {
        await agent.close()
        await usageSet(service, tunnel.id, ['--tool-calls', '0'])
      }
    })

    it('serves a 2026-07-28 body under a 2025 header as the body says', async () => {
      // Wait for the places of the previous test to come back.
      const res = await until(
        () => send(tunnel.url, 'mixed', 'tools/list', {}, { header: '2025-11-25' }),
        (r) => r.status !== 429,
      )
      assert.equal(res.status, 200)
      const answer = (await answerOf(res)) as { result: { tools: { name: string }[] } }
      assert.ok(answer.result.tools.some((t) => t.name === 'ask_name'))
      await service.proc.waitFor(/MCP-Protocol-Version 2025-11-25 with a 2026-07-28 body/)
    })
  },
)
