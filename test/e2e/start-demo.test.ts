// `npm start`'s demo (scripts/start.mjs) as a new user meets it: real burrowd and `burrow up`
// started by the script, then curl, an SDK script and the MCP Inspector's CLI one after another,
// each closing as it does by default (none sends DELETE), and a fourth and fifth client after
// them; the demo account signs in with the password the script printed.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { startChild, type Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { ROOT } from '../helpers/stack.js'

const run = promisify(execFile)
const LOCALHOST_DNS = join(ROOT, 'test/helpers/localhost-dns.mjs')
const SDK_SCRIPT = join(ROOT, 'test/fixtures/sdk-agent-script.mjs')
const INSPECTOR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js')

/** Environment for Node tools that must resolve `*.localhost` as curl and browsers do. */
const toolEnv = { ...process.env, NODE_OPTIONS: `--import ${LOCALHOST_DNS}` }

/** The README's curl: one initialize, nothing else. */
async function curlInitialize(url: string): Promise<string> {
  const { stdout } = await run('curl', [
    '-s',
    '-i',
    url,
    '-H',
    'content-type: application/json',
    '-H',
    'accept: application/json, text/event-stream',
    '-d',
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'curl', version: '1' },
      },
    }),
  ])
  return stdout
}

/** The SDK script (v1, or v2 with `sdk: 2`); returns its output. */
async function sdkScript(url: string, sdk: 1 | 2 = 1): Promise<string> {
  const { stdout } = await run(process.execPath, [SDK_SCRIPT, url], {
    env: { ...toolEnv, SDK: String(sdk) },
  })
  return stdout
}

describe('npm start: the demo serves client after client', () => {
  let dataDir: string
  let listen: string
  let demo: Child
  let url: string
  let email: string
  let password: string

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'burrow-demo-'))
    listen = `127.0.0.1:${await freePort()}`
    // A process group of its own, as a terminal gives a foreground command (Ctrl-C signals it).
    demo = startChild(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
      env: { ...process.env, BURROW_DATA_DIR: dataDir, BURROW_LISTEN: listen },
      detached: true,
    })
    const [, online] = await demo.waitFor(/Tunnel online:\s+(\S+)/, 30_000)
    url = online!
    const [, shownEmail, shownPassword] = await demo.waitFor(
      /signs in as (\S+) with password (\S+)/,
      30_000,
    )
    email = shownEmail!
    password = shownPassword!
  })

  after(async () => {
    await demo?.stop('SIGINT')
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('answers curl, an SDK script, the Inspector CLI, then a fourth and a fifth client', async () => {
    const curled = await curlInitialize(url)
    assert.match(curled, /^HTTP\/1\.1 200/, curled)
    assert.match(curled, /burrow-hello/)

    assert.match(await sdkScript(url), /Hello, script! This answer came through a Burrow tunnel/)

    const inspector = await run(
      process.execPath,
      [INSPECTOR, '--cli', url, '--transport', 'http', '--method', 'tools/list'],
      { env: toolEnv },
    )
    assert.match(inspector.stdout, /"name": "hello"/, inspector.stdout + inspector.stderr)

    // Three sessions were opened and none ended: the fourth and fifth still get in.
    assert.match(await sdkScript(url, 2), /Hello, script!/)
    assert.match(await curlInitialize(url), /^HTTP\/1\.1 200/)
    assert.match(await sdkScript(url), /Hello, script!/)
  })

  it('lets the demo account sign in with the printed password, kept in demo.json', async () => {
    const saved = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')) as {
      email: string
      password: string
    }
    assert.equal(saved.email, email)
    assert.equal(saved.password, password)
    const base = `http://${listen}`
    const form = await fetch(`${base}/signin`)
    const formCookie = form.headers.getSetCookie()[0]?.split(';', 1)[0] ?? ''
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? ''
    const res = await fetch(`${base}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: formCookie },
      body: new URLSearchParams({ _csrf: csrf, email, password }),
    })
    assert.equal(res.status, 303, await res.text())
    assert.ok(res.headers.getSetCookie().some((c) => c.startsWith('burrow_session=')))
  })

  it('names the dashboard by the host its mail links use', () => {
    // A browser signed in at 127.0.0.1 was asked to sign in again by a mailed localhost link.
    assert.match(demo.stdout, new RegExp(`Dashboard: http://localhost:${listen.split(':')[1]}/ `))
    // Each of burrowd's lines is marked as its own, however its output was cut into chunks.
    for (const line of demo.stdout.split('\n')) {
      if (/^(INFO|WARN|ERROR) /.test(line))
        assert.fail(`a line of burrowd's without its mark: ${line}`)
    }
  })

  it('says when its port is taken, without an internal error', async () => {
    const other = mkdtempSync(join(tmpdir(), 'burrow-demo-'))
    try {
      const second = startChild(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
        env: { ...process.env, BURROW_DATA_DIR: other, BURROW_LISTEN: listen },
      })
      assert.equal(await second.exited, 1)
      assert.match(second.stderr, /is in use/)
      assert.doesNotMatch(second.stdout + second.stderr, /internal error|at Server\./)
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })

  it('stops on Ctrl-C, burrow up then burrowd, with nothing failing in the log', async () => {
    // A terminal's Ctrl-C sends SIGINT to the whole foreground group; npm start then stops
    // burrow up and burrowd, each once, and burrowd finishes its graceful stop.
    process.kill(-demo.proc.pid!, 'SIGINT')
    assert.equal(await demo.exited, 0, demo.stderr)
    const output = demo.stdout + demo.stderr
    assert.match(output, /stopped/)
    assert.doesNotMatch(
      output,
      /driver has already been destroyed|could not record|internal error|request failed/,
    )
  })
})
