// How `burrow up` picks and changes its layout, through real processes: auto-detect from a client
// config file (one server: exposed directly; several without a terminal: all aggregated, with a
// warning), a project's .mcp.json not run without asking, and the inspector's Apply switching the
// live layout on the same public URL.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { connectAgent, firstText } from '../helpers/agent-scenario.js'
import { freePort } from '../helpers/free-port.js'
import { BURROW, EVERYTHING, startClient, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)
/** util-linux's script: runs burrow on a terminal of its own. */
const SCRIPT = '/usr/bin/script'

/**
 * Run `burrow up` in `cwd` on a terminal, answer its question with `keys`, and collect what it
 * prints until it exits (or until `until` holds for what it printed, then stop it).
 */
function onTerminal(
  cwd: string,
  env: NodeJS.ProcessEnv,
  keys: string,
  until?: (out: string) => boolean,
): Promise<{ code: number | null; out: string }> {
  const command = [process.execPath, BURROW, '--broker', env.BURROW_BROKER!, 'up']
    .map((word) => JSON.stringify(word))
    .join(' ')
  const child = spawn(SCRIPT, ['-qec', command, '/dev/null'], { cwd, env })
  let out = ''
  let answered = false
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    const poll = setInterval(() => {
      if (until?.(out)) child.kill('SIGTERM')
    }, 50)
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8')
      if (!answered && out.includes('[y/N]')) {
        answered = true
        child.stdin.write(keys)
      }
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      clearInterval(poll)
      resolve({ code, out })
    })
  })
}

/** Every tool name, following the aggregator's cursors page by page. */
async function allToolNames(
  client: Awaited<ReturnType<typeof connectAgent>>['client'],
): Promise<string[]> {
  const names: string[] = []
  let cursor: string | undefined
  do {
    const page = await client.listTools(cursor ? { cursor } : {})
    names.push(...page.tools.map((t) => t.name))
    cursor = page.nextCursor
  } while (cursor)
  return names
}

describe('burrow up layouts', () => {
  let service: Service
  let dir: string
  const server = { command: process.execPath, args: [EVERYTHING, 'stdio'] }

  before(async () => {
    service = await startService({}, { plan: 'pro' })
    dir = mkdtempSync(join(tmpdir(), 'burrow-layouts-'))
  })
  after(async () => {
    await service?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('auto-detect with one configured server exposes it directly', async () => {
    const config = join(dir, 'one.json')
    writeFileSync(config, JSON.stringify({ mcpServers: { 'Everything Server': server } }))
    const tunnel = await service.tunnel('detect-one')
    const cli = await startClient(service, tunnel.key, ['--config', config])
    try {
      const { client } = await connectAgent(tunnel.url)
      assert.equal(
        firstText(await client.callTool({ name: 'echo', arguments: { message: 'direct' } })),
        'Echo: direct',
      )
      await client.close()
    } finally {
      await cli.stop()
    }
  })

  it('auto-detect with several servers and no terminal aggregates them all and warns', async () => {
    const config = join(dir, 'two.json')
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { first: server, 'Second One': { ...server, env: { X: '1' } } },
      }),
    )
    const tunnel = await service.tunnel('detect-two')
    const cli = await startClient(service, tunnel.key, ['--config', config])
    try {
      assert.match(cli.stderr, /WARN .*aggregat/i)
      const { client } = await connectAgent(tunnel.url)
      const names = await allToolNames(client)
      assert.ok(
        names.includes('first__echo') && names.includes('second-one__echo'),
        names.join(', '),
      )
      assert.equal(
        firstText(
          await client.callTool({ name: 'second-one__echo', arguments: { message: 'agg' } }),
        ),
        'Echo: agg',
      )
      await client.close()
    } finally {
      await cli.stop()
    }
  })

  it("does not run a project's .mcp.json without a terminal to ask; --config naming it does", async () => {
    // A cloned repository whose .mcp.json starts a server that leaves a mark when it runs.
    const project = mkdtempSync(join(dir, 'project-'))
    const home = mkdtempSync(join(dir, 'home-'))
    writeFileSync(
      join(project, 'server.mjs'),
      `import { writeFileSync } from 'node:fs'\n` +
        `writeFileSync(new URL('./ran', import.meta.url), '')\n` +
        `await import(${JSON.stringify(pathToFileURL(EVERYTHING).href)})\n`,
    )
    const mcpJson = join(project, '.mcp.json')
    writeFileSync(
      mcpJson,
      JSON.stringify({
        mcpServers: {
          repo: { command: process.execPath, args: [join(project, 'server.mjs'), 'stdio'] },
        },
      }),
    )
    const tunnel = await service.tunnel('project-file')
    const env = {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      CODEX_HOME: join(home, '.codex'),
      BURROW_API_KEY: tunnel.key,
      BURROW_BROKER: service.broker,
      BURROW_NO_UPDATE_CHECK: '1',
      BURROW_NO_TELEMETRY: '1',
    }
    const refused = await run(process.execPath, [BURROW, '--broker', service.broker, 'up'], {
      cwd: project,
      env,
      timeout: 30_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    )
    assert.equal(refused.code, 1)
    assert.match(
      refused.stderr,
      /found no MCP server of your own, just the server \(\S+\) that only this directory's project file/,
    )
    assert.match(refused.stderr, /\.mcp\.json/)
    assert.match(refused.stderr, /--config/)
    assert.equal(existsSync(join(project, 'ran')), false, 'the command never ran')

    if (existsSync(SCRIPT)) {
      // On a terminal it asks, showing the command: no, or no answer at all, runs nothing.
      const no = await onTerminal(project, env, 'n\r')
      assert.equal(no.code, 1, no.out)
      assert.match(no.out, /declared by this directory's project file .*\.mcp\.json/)
      assert.match(no.out, /repo stdio: .*server\.mjs stdio/)
      assert.match(no.out, /was not approved/)
      const eof = await onTerminal(project, env, '\x04')
      assert.equal(eof.code, 1, eof.out)
      assert.match(eof.out, /no answer \(input ended\)/)
      assert.doesNotMatch(eof.out, /internal error/)
      assert.equal(existsSync(join(project, 'ran')), false, 'the command never ran')
      // The child writes its mark as it starts, which may come just after "Tunnel online".
      const ran = (out: string) => /Tunnel online/.test(out) && existsSync(join(project, 'ran'))
      const yes = await onTerminal(project, env, 'y\r', ran)
      assert.match(yes.out, /Tunnel online/)
      assert.equal(existsSync(join(project, 'ran')), true, 'a yes runs it')
      rmSync(join(project, 'ran'))
    }

    const cli = await startClient(service, tunnel.key, ['--config', mcpJson], { HOME: home })
    try {
      const { client } = await connectAgent(tunnel.url)
      assert.equal(
        firstText(await client.callTool({ name: 'echo', arguments: { message: 'named' } })),
        'Echo: named',
      )
      await client.close()
      assert.equal(existsSync(join(project, 'ran')), true)
    } finally {
      await cli.stop()
    }
  })

  it("the inspector's Apply switches the live layout; the public URL stays", async () => {
    const token = 'layout-apply-token-0123'
    const port = await freePort()
    const tunnel = await service.tunnel('apply')
    const cli = await startClient(
      service,
      tunnel.key,
      ['--stdio', `${process.execPath} ${EVERYTHING} stdio`, '--inspect-admin'],
      {
        BURROW_INSPECT_ADDR: `127.0.0.1:${port}`,
        BURROW_INSPECT_TOKEN: token,
      },
    )
    try {
      const before = await connectAgent(tunnel.url)
      assert.ok((await before.client.listTools()).tools.some((t) => t.name === 'echo'))
      await before.client.close()
      // A command that does not exist is refused, and the current layout keeps serving.
      const refused = await fetch(`http://127.0.0.1:${port}/api/config/apply`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          upstreams: [{ name: '', kind: 'stdio', value: 'burrow-no-such-command-7 --x' }],
        }),
      })
      const problem = (await refused.json()) as { error: string }
      assert.equal(refused.status, 422, problem.error)
      assert.match(problem.error, /did not start \(.*burrow-no-such-command-7.*\); the current one/)
      const still = await connectAgent(tunnel.url)
      assert.equal(
        firstText(await still.client.callTool({ name: 'echo', arguments: { message: 'kept' } })),
        'Echo: kept',
      )
      await still.client.close()
      const res = await fetch(`http://127.0.0.1:${port}/api/config/apply`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          upstreams: [
            { name: 'alpha', kind: 'stdio', value: `${process.execPath} ${EVERYTHING} stdio` },
            { name: 'beta', kind: 'stdio', value: `${process.execPath} ${EVERYTHING} stdio` },
          ],
        }),
      })
      assert.equal(res.status, 200, await res.text())
      await cli.waitFor(/now forwarding to: 2 upstreams/)
      const after = await connectAgent(tunnel.url)
      const names = await allToolNames(after.client)
      assert.ok(names.includes('alpha__echo') && names.includes('beta__echo'), names.join(', '))
      await after.client.close()
    } finally {
      await cli.stop()
    }
  })
})
