/**
 * A local HTTP server speaking 2026-07-28 (the v2 SDK's, behind `burrow up --upstream`) keeps a
 * call's data in the requestState of its input_required answer, bound to nobody: through real
 * burrowd and `burrow up` processes on a `token` tunnel with two agent tokens, agent b presenting
 * agent a's state is refused by `burrow up` (a JSON-RPC error for b's request) and never resumes
 * a's call, whether the server answered as JSON or as an SSE stream; a resumes it with its own
 * state, and the official v2 client as agent a completes such calls on its own. Before, b got
 * the answer of a's call (here, a's note).
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client'
import { allMessagesOf } from '../../packages/cli/test/helpers/raw-mcp.js'
import { startChild, type Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { MODERN } from '../helpers/modern-request.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { BURROWD, ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)
const V2_SERVER = `${ROOT}test/fixtures/v2-sdk-server.mjs`
const A_NOTE = "a's private note"

interface Answer {
  id?: number
  result?: { resultType?: string; requestState?: string; content?: { text: string }[] }
  error?: { code: number; message: string }
}

describe(
  '2026-07-28 requestStates of a local HTTP server, between two agents',
  { timeout: 120_000 },
  () => {
    let service: Service
    let upstream: Child
    let cli: Child
    let url: string
    const secrets: string[] = []

    /**
     * A 2026-07-28 tools/call of `note` as the agent holding `secret`; with `progress`, the server
     * reports progress first and answers as SSE.
     */
    const note = (secret: string, id: number, progress: boolean, extra = {}) =>
      publicFetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${secret}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'note',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            _meta: {
              ...(progress ? { progressToken: `p${id}` } : {}),
              'io.modelcontextprotocol/protocolVersion': MODERN,
              'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
            },
            name: 'note',
            arguments: { note: A_NOTE },
            ...extra,
          },
        }),
      })

    /** The answer among the messages of `res`, JSON or SSE. */
    const answerIn = async (res: Response): Promise<Answer> => {
      const messages = (await allMessagesOf(res)) as Answer[]
      const answer = messages.find((m) => m.result !== undefined || m.error !== undefined)
      assert.ok(answer, `no answer in ${JSON.stringify(messages)}`)
      return answer
    }

    before(async () => {
      service = await startService({ BURROW_LOG: 'info' })
      const env = { env: service.env }
      const made = await run(
        process.execPath,
        [BURROWD, 'token', 'create', '--account', 'acme', '--json'],
        env,
      )
      const token = (JSON.parse(made.stdout) as { token: string }).token
      const api = async (path: string, body: unknown) => {
        const res = await fetch(`http://127.0.0.1:${service.port}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
        assert.ok(res.ok, `POST ${path}: ${res.status}`)
        return res.json()
      }
      const created = (await api('/api/tunnels', { name: 'two-agents', access: 'token' })) as {
        tunnel: { id: string; mcp_url: string }
        key: string
      }
      url = created.tunnel.mcp_url
      for (const name of ['agent a', 'agent b']) {
        const t = (await api(`/api/tunnels/${created.tunnel.id}/agent-tokens`, { name })) as {
          secret: string
        }
        secrets.push(t.secret)
      }
      const port = await freePort()
      upstream = startChild(process.execPath, [V2_SERVER, '--http'], {
        env: { ...process.env, PORT: String(port) },
      })
      await upstream.waitFor(/listening on/)
      cli = await startClient(service, created.key, ['--upstream', `http://127.0.0.1:${port}/mcp`])
    })

    after(async () => {
      await cli?.stop()
      await upstream?.stop()
      await service?.close()
    })

    for (const [format, progress] of [
      ['JSON', false],
      ['SSE', true],
    ] as const) {
      it(`keeps agent b from resuming agent a's call with a's state (answers as ${format})`, async () => {
        const [a, b] = secrets as [string, string]
        const first = await note(a, 1, progress)
        const type = first.headers.get('content-type') ?? ''
        assert.ok(type.startsWith(progress ? 'text/event-stream' : 'application/json'), type)
        const asked = await answerIn(first)
        assert.equal(asked.result?.resultType, 'input_required')
        const state = asked.result.requestState!
        const retry = {
          requestState: state,
          inputResponses: { confirm: { action: 'accept', content: {} } },
        }

        const stolen = await note(b, 2, progress, retry)
        const text = await stolen.text()
        assert.equal(stolen.status, 400, text)
        assert.ok(!text.includes(A_NOTE), `b read a's note: ${text}`)
        const refusal = JSON.parse(text) as Answer
        assert.equal(refusal.id, 2, "the error answers b's request")
        assert.equal(refusal.error?.code, -32602)

        const own = await answerIn(await note(a, 3, progress, retry))
        assert.equal(own.result?.content?.[0]?.text, `kept note: ${A_NOTE}`)
      })
    }

    it('lets the official v2 client, as either agent, complete a call that asks for input', async () => {
      for (const secret of secrets) {
        const client = new V2Client(
          { name: 'e2e-v2', version: '1.0.0' },
          {
            versionNegotiation: { mode: { pin: '2026-07-28' } },
            capabilities: { elicitation: {} },
          },
        )
        client.setRequestHandler('elicitation/create', async () => ({
          action: 'accept' as const,
          content: {},
        }))
        await client.connect(
          new V2Transport(new URL(url), {
            fetch: publicFetch,
            requestInit: { headers: { authorization: `Bearer ${secret}` } },
          }),
        )
        try {
          const result = (await client.callTool({ name: 'note', arguments: { note: 'sdk' } })) as {
            content: { text: string }[]
          }
          assert.equal(result.content[0]!.text, 'kept note: sdk')
        } finally {
          await client.close()
        }
      }
    })
  },
)
