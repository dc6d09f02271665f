// End to end through real burrowd and burrow processes to server-everything over stdio (burrow
// spawns and supervises it), with the official SDK client as the agent.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  connectAgent,
  exerciseEverything,
  firstText,
  statusForSession,
} from '../helpers/agent-scenario.js'
import { startChild, type Child } from '../helpers/child.js'
import { BURROW, ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('tunnel to a stdio upstream (server-everything over stdio)', () => {
  let service: Service
  let cli: Child
  let url: string
  let dir: string
  const pidFile = () => join(dir, 'child.pid')
  const childPid = () => Number(readFileSync(pidFile(), 'utf8'))

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'burrow-stdio-'))
    service = await startService()
    const tunnel = await service.tunnel('everything')
    url = tunnel.url
    const fixture = join(ROOT, 'test/fixtures/everything-with-pid.mjs')
    cli = await startClient(
      service,
      tunnel.key,
      ['--stdio', `node "${fixture}"`, '--name', 'everything'],
      {
        PID_FILE: pidFile(),
      },
    )
  })

  after(async () => {
    await cli?.stop()
    await service?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('prints the snippet for the named tunnel', () => {
    assert.match(cli.stdout, /"everything-via-tunnel"/)
    assert.match(cli.stdout, /Forwarding to: +stdio: node/)
  })

  it('serves the whole MCP session through the tunnel, then DELETE ends it', async () => {
    const { client, transport } = await connectAgent(url)
    await exerciseEverything(client)
    const sessionId = transport.sessionId
    assert.ok(sessionId)
    await transport.terminateSession()
    assert.equal(await statusForSession(url, sessionId), 404)
    await client.close()
  })

  it('two agent sessions at once share the child without mixing up their ids', async () => {
    const a = await connectAgent(url)
    const b = await connectAgent(url)
    const [ra, rb] = await Promise.all([
      a.client.callTool({ name: 'echo', arguments: { message: 'from a' } }),
      b.client.callTool({ name: 'echo', arguments: { message: 'from b' } }),
    ])
    assert.equal(firstText(ra), 'Echo: from a')
    assert.equal(firstText(rb), 'Echo: from b')
    await a.client.close()
    await b.client.close()
  })

  it('answers 404 after the stdio server restarts, then a fresh initialize works', async () => {
    const { client } = await connectAgent(url)
    assert.equal(
      firstText(await client.callTool({ name: 'echo', arguments: { message: 'before' } })),
      'Echo: before',
    )
    const pid = childPid()
    process.kill(pid, 'SIGKILL')
    for (let i = 0; i < 100 && childPid() === pid; i++) await sleep(100)
    assert.notEqual(childPid(), pid, 'the supervisor restarted the child')
    await assert.rejects(
      client.callTool({ name: 'echo', arguments: { message: 'stale' } }),
      (err: unknown) => err instanceof StreamableHTTPError && err.code === 404,
    )
    await client.close()
    const fresh = await connectAgent(url)
    assert.equal(
      firstText(await fresh.client.callTool({ name: 'echo', arguments: { message: 'after' } })),
      'Echo: after',
    )
    await fresh.client.close()
  })

  it('a stdio server that crashes on start is restarted with backoff, then the hint names the command and its last stderr line', async () => {
    const tunnel = await service.tunnel('crashy')
    const crash = join(ROOT, 'test/fixtures/crash-on-start.mjs')
    const child = startChild(
      process.execPath,
      [BURROW, '--broker', service.broker, 'up', '--stdio', `node "${crash}"`],
      {
        env: { ...process.env, BURROW_API_KEY: tunnel.key },
      },
    )
    try {
      await child.waitFor(/Tunnel online/)
      const hint = await child.waitFor(/keeps crashing[^\n]*/, 20_000)
      assert.ok(child.stderr.split('boom: missing TOKEN').length - 1 >= 3, 'it was restarted')
      assert.match(hint[0], /crash-on-start\.mjs/)
      assert.match(hint[0], /boom: missing TOKEN/)
      assert.equal(child.stderr.split('keeps crashing').length - 1, 1, 'the hint is printed once')
    } finally {
      await child.stop()
    }
  })
})
