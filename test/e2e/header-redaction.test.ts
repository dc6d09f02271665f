/**
 * Forwarded redaction of response headers through real processes: a real burrowd, a real
 * `burrow up` and a local HTTP MCP server that answers with the header fields each test asks for.
 * With `redaction.forwarded`, secrets in header values are masked for the agent as in bodies, and
 * a field whose name holds one is left out; the fields that frame the exchange (content type and length, the MCP session, cookies, the
 * authentication challenge) pass as sent; nothing of them is kept in history.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { publicFetch } from '../helpers/public-fetch.js'
import { BURROWD, startClient, startService, type Service } from '../helpers/stack.js'
import type { Child } from '../helpers/child.js'
import { bearerApi } from '../helpers/web-client.js'

const run = promisify(execFile)

const GITHUB_TOKEN = `ghp_${'Zx81'.repeat(9)}`
const AWS_KEY = 'AKIAQWERTYUIOPASDFGH'
/** A session id shaped as a secret: the agent must get it, and send it back, as it came. */
const SESSION_ID = `ghp_${'Se55'.repeat(9)}`
const CHALLENGE = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'

/** The local MCP server: answers every POST with `fields` (flat name, value list) and the echo. */
interface LocalServer {
  readonly url: string
  /** Header fields of the next answers, repeated names allowed. */
  fields: string[]
  /** The `Mcp-Session-Id` of each request it got. */
  readonly sessions: (string | undefined)[]
  close(): Promise<void>
}

async function startLocalServer(): Promise<LocalServer> {
  const local: Omit<LocalServer, 'url' | 'close'> = { fields: [], sessions: [] }
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      local.sessions.push(req.headers['mcp-session-id'] as string | undefined)
      const rpc = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string }
      const result =
        rpc.method === 'initialize'
          ? {
              protocolVersion: '2025-03-26',
              capabilities: {},
              serverInfo: { name: 'h', version: '1' },
            }
          : { content: [{ type: 'text', text: 'plain answer' }] }
      const body = JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result })
      res.writeHead(200, [
        'content-type',
        'application/json',
        'content-length',
        String(Buffer.byteLength(body)),
        ...local.fields,
      ])
      // As bytes: a string body makes Node write the head as UTF-8 too, not as its bytes.
      res.end(Buffer.from(body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(local, {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  })
}

/** Every byte burrowd keeps on disk for SQLite: the database and its WAL. */
function sqliteBytes(service: Service): string {
  return ['burrow.db', 'burrow.db-wal', 'burrow.db-shm']
    .map((f) => join(service.dataDir, f))
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString('latin1'))
    .join('')
}

describe('forwarded redaction of response headers', { timeout: 120_000 }, () => {
  let service: Service
  let local: LocalServer
  let client: Child
  let tunnel: { id: string; key: string; url: string }
  let token: string

  const api = (method: string, path: string, body?: unknown) =>
    bearerApi(`http://127.0.0.1:${service.port}`, token)<Record<string, unknown>>(
      method,
      path,
      body,
    )
  const setPolicy = async (policy: unknown) => {
    const put = await api('PUT', `/api/tunnels/${tunnel.id}/policy`, policy)
    assert.equal(put.status, 200, JSON.stringify(put.json))
  }
  let nextId = 1
  /** A JSON-RPC request of `method` to the tunnel; the answer's head and body as the agent got them. */
  const post = async (method: string, session?: string) => {
    const id = nextId++
    const res = await publicFetch(tunnel.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-03-26',
        ...(session !== undefined ? { 'mcp-session-id': session } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method,
        params:
          method === 'tools/call'
            ? { name: 'echo', arguments: {} }
            : {
                protocolVersion: '2025-03-26',
                capabilities: {},
                clientInfo: { name: 'a', version: '1' },
              },
      }),
    })
    const text = await res.text()
    return { id, status: res.status, headers: res.headers, text }
  }

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    const { stdout } = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--name', 'headers', '--json'],
      { env: service.env },
    )
    token = (JSON.parse(stdout) as { token: string }).token
    local = await startLocalServer()
    tunnel = await service.tunnel('headers')
    client = await startClient(service, tunnel.key, ['--upstream', local.url])
  })

  after(async () => {
    await client?.stop()
    await local?.close()
    await service?.close()
  })

  it('masks a secret in a custom header for the agent and keeps none in history; framing headers pass as sent', async () => {
    await setPolicy({ redaction: { forwarded: true } })
    local.fields = [
      'mcp-session-id',
      SESSION_ID,
      'www-authenticate',
      CHALLENGE,
      'set-cookie',
      `sid=${GITHUB_TOKEN}; Path=/`,
      'x-debug-token',
      `token ${GITHUB_TOKEN} in use`,
      'x-plain',
      'nothing secret here',
    ]
    const init = await post('initialize')
    assert.equal(init.status, 200, init.text)
    // The session id looks like a token: masked, the agent's session would end.
    assert.equal(init.headers.get('mcp-session-id'), SESSION_ID)
    assert.equal(init.headers.get('www-authenticate'), CHALLENGE)
    assert.equal(init.headers.get('set-cookie'), `sid=${GITHUB_TOKEN}; Path=/`)
    assert.equal(init.headers.get('content-type'), 'application/json')
    assert.equal(init.headers.get('x-plain'), 'nothing secret here')
    assert.equal(init.headers.get('x-debug-token'), 'token [REDACTED:github_token] in use')
    assert.equal(Number(init.headers.get('content-length')), Buffer.byteLength(init.text))
    assert.equal((JSON.parse(init.text) as { id: number }).id, init.id)

    local.fields = ['x-aws', AWS_KEY, 'mcp-session-id', SESSION_ID]
    const call = await post('tools/call', SESSION_ID)
    assert.equal(call.status, 200, call.text)
    assert.match(call.text, /plain answer/)
    assert.equal(call.headers.get('x-aws'), '[REDACTED:aws_access_key]')
    // The agent sent the session id back as it got it, and the local server got it so.
    assert.equal(local.sessions.at(-1), SESSION_ID)

    // History keeps no header: the secrets are in no record, page or file.
    const deadline = Date.now() + 20_000
    let calls = ''
    while (Date.now() < deadline) {
      const listed = await api('GET', `/api/tunnels/${tunnel.id}/calls`)
      calls = JSON.stringify(listed.json)
      if (calls.includes('"tools/call"')) break
      await new Promise((r) => setTimeout(r, 200))
    }
    assert.match(calls, /"tools\/call"/)
    assert.ok(!calls.includes(GITHUB_TOKEN) && !calls.includes(AWS_KEY), calls)
    const disk = sqliteBytes(service)
    assert.ok(!disk.includes(GITHUB_TOKEN) && !disk.includes(AWS_KEY), 'a header secret is on disk')
  })

  it('masks a secret split across repeated fields of one name, in every field it spans', async () => {
    await setPolicy({ redaction: { forwarded: true } })
    local.fields = [
      'x-split',
      GITHUB_TOKEN.slice(0, 20),
      'x-split',
      GITHUB_TOKEN.slice(20),
      'x-other',
      'AKIAQWERTY',
      'x-other',
      'UIOPASDFGH',
    ]
    const call = await post('tools/call')
    assert.equal(call.status, 200, call.text)
    // A reader combines repeated fields (RFC 9110 §5.3): each part is masked.
    assert.equal(call.headers.get('x-split'), '[REDACTED:github_token], [REDACTED:github_token]')
    assert.equal(
      call.headers.get('x-other'),
      '[REDACTED:aws_access_key], [REDACTED:aws_access_key]',
    )
    assert.ok(!call.headers.get('x-split')!.includes('Zx81'))
  })

  it('masks every one of the most fields a head may carry, and a configured key names a header', async () => {
    await setPolicy({ redaction: { forwarded: true, keys: ['x-api-key'] } })
    // The codec carries at most 256 fields in 16 KiB: burrow up refuses more, so the redaction
    // of a head is bounded by that.
    const many: string[] = []
    for (let i = 0; i < 240; i++) many.push(`x-k${i}`, `AKIA${String(i).padStart(16, '7')}`)
    local.fields = [...many, 'x-api-key', 'not a known shape']
    const call = await post('tools/call')
    assert.equal(call.status, 200, call.text)
    for (let i = 0; i < 240; i++) {
      assert.equal(call.headers.get(`x-k${i}`), '[REDACTED:aws_access_key]', `x-k${i}`)
    }
    assert.equal(call.headers.get('x-api-key'), '[REDACTED:x-api-key]')

    // More than a head may carry: refused, with the request's id, never forwarded unmasked.
    local.fields = [...many, ...many.slice(0, 60)]
    const over = await post('tools/call')
    assert.equal(over.status, 502, over.text)
    assert.equal((JSON.parse(over.text) as { id: number }).id, over.id)
    assert.ok(!over.text.includes('AKIA7'), over.text)
    for (const [name] of over.headers) assert.ok(!name.startsWith('x-k'), name)
  })

  it("reads a value's UTF-8 bytes as text, as a body's, and hands on the bytes as sent", async () => {
    await setPolicy({ redaction: { forwarded: true, patterns: ['geheim-ü[0-9]+'] } })
    // Node writes (and the agent reads) a value's bytes one character each.
    const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1')
    local.fields = ['x-note', bytes('vor geheim-ü1234 nach, été'), 'x-plain', bytes('été 😀')]
    const call = await post('tools/call')
    assert.equal(call.status, 200, call.text)
    // Before, the pattern matched a body's text but never a header's: the value passed as sent.
    assert.equal(call.headers.get('x-note'), bytes('vor [REDACTED:pattern] nach, été'))
    assert.equal(call.headers.get('x-plain'), bytes('été 😀'))
  })

  it('leaves out a field whose name holds a secret; framing fields and others pass (found by a review)', async () => {
    await setPolicy({ redaction: { forwarded: true, patterns: ['internal-[0-9]{4}'] } })
    // Before, names were not scanned: `x-ghp_…: 1` reached the agent as sent.
    const many: string[] = []
    for (let i = 0; i < 200; i++) many.push(`x-${i}-${AWS_KEY}`, 'v')
    local.fields = [
      'x-plain',
      'nothing secret here',
      'mcp-session-id',
      SESSION_ID,
      `x-${GITHUB_TOKEN}`,
      '1',
      `X-${AWS_KEY}`,
      'yes',
      `x-${GITHUB_TOKEN}`,
      'again',
      'x-internal-4242',
      'pattern',
      `access-control-${GITHUB_TOKEN}`,
      '*',
      // A secret only when the names are read in order, across a framing field.
      `x-${GITHUB_TOKEN.slice(0, 18)}`,
      'a',
      'www-authenticate',
      CHALLENGE,
      GITHUB_TOKEN.slice(18),
      'b',
      ...many,
    ]
    const call = await post('tools/call', SESSION_ID)
    assert.equal(call.status, 200, call.text)
    assert.match(call.text, /plain answer/)
    assert.equal((JSON.parse(call.text) as { id: number }).id, call.id)
    const names = [...call.headers.keys()]
    for (const name of names) {
      for (const secret of [GITHUB_TOKEN, AWS_KEY, 'internal-4242', GITHUB_TOKEN.slice(18)]) {
        assert.ok(!name.includes(secret.toLowerCase()), `${name} reached the agent`)
      }
      assert.ok(!/^x-\d+-/.test(name), name)
    }
    assert.equal(call.headers.get('x-plain'), 'nothing secret here')
    assert.equal(call.headers.get('mcp-session-id'), SESSION_ID)
    assert.equal(call.headers.get('www-authenticate'), CHALLENGE)
    assert.equal(call.headers.get('content-type'), 'application/json')

    // The same head without forwarded redaction: the names pass as sent (the test can fail).
    await setPolicy({ redaction: { forwarded: false } })
    const plain = await post('tools/call', SESSION_ID)
    assert.equal(plain.status, 200, plain.text)
    assert.equal(plain.headers.get(`x-${GITHUB_TOKEN}`), '1, again')
    assert.equal(plain.headers.get(`x-${AWS_KEY}`), 'yes')
  })

  it('forwards header values as sent when redaction is not forwarded', async () => {
    await setPolicy({ redaction: { forwarded: false } })
    local.fields = ['x-debug-token', GITHUB_TOKEN]
    const call = await post('tools/call')
    assert.equal(call.status, 200, call.text)
    assert.equal(call.headers.get('x-debug-token'), GITHUB_TOKEN)
  })
})
