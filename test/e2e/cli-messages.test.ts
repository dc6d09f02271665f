// What `burrow` says when the first hour goes wrong, through the real binary: each message names
// what happened, to what, and what to do, with the exit status a script can rely on.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createServer, type AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { startChild } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { connectAgent, firstText } from '../helpers/agent-scenario.js'
import { BURROW, EVERYTHING, startClient, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)
const QUIET = { BURROW_NO_UPDATE_CHECK: '1', BURROW_NO_TELEMETRY: '1' }

/** Run burrow to its end; resolves with its status and output. */
async function burrow(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BURROW, ...args], {
      env: { ...process.env, ...QUIET, ...env },
      timeout: 30_000,
    })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

describe('burrow messages', () => {
  let service: Service

  before(async () => {
    // Scale: room for the tunnels these tests make.
    service = await startService({}, { plan: 'scale' })
  })

  after(async () => {
    await service?.close()
  })

  describe('flags', () => {
    it('an unknown flag: the nearest known one, and the help of the command in use', async () => {
      const { code, stderr } = await burrow(['up', '--stdoi', 'node server.js'])
      assert.equal(code, 1)
      assert.equal(
        stderr,
        'burrow: unknown option --stdoi; did you mean --stdio? (see "burrow up --help")\n',
      )
    })

    it('a mistyped global flag points to "burrow --help", where global flags are listed', async () => {
      // "burrow up --help" and "burrow detect --help" do not list --broker or --no-telemetry.
      for (const [args, meant] of [
        [['--brokr', 'ws://127.0.0.1:1', 'up', '--stdio', 'x'], '--broker'],
        [['up', '--no-telemtry', '--stdio', 'x'], '--no-telemetry'],
        [['--api-kye', 'mtk_x', 'detect'], '--api-key'],
      ] as const) {
        const { code, stderr } = await burrow(args)
        assert.equal(code, 1, stderr)
        assert.match(stderr, new RegExp(`did you mean ${meant}\\? \\(see "burrow --help"\\)\n$`))
        const { stdout } = await burrow(['--help'])
        assert.ok(stdout.includes(`${meant} `), `burrow --help does not list ${meant}`)
      }
      // Hostile: a flag name thousands of characters long gets no suggestion and one line.
      const { code, stderr } = await burrow(['up', `--${'x'.repeat(5000)}`])
      assert.equal(code, 1)
      assert.equal(stderr.split('\n').length, 2, stderr.slice(0, 200))
    })

    it('another kind of Burrow secret given as the tunnel key is named as what it is', async () => {
      // Each was told 'the tunnel key must start with "mtk_"', which does not say what went wrong.
      const cases = [
        ['btk_0123456789', /^burrow: that is an API token \(btk_…\), for the JSON API; /],
        ['atk_0123456789', /^burrow: that is an agent token \(atk_…\)/],
        ["'mtk_0123456789'", /^burrow: the tunnel key has quotes around it; remove them/],
        ['sk-0123456789', /^burrow: the tunnel key must start with "mtk_"; /],
      ] as const
      for (const [key, said] of cases) {
        for (const env of [{}, { BURROW_API_KEY: key }]) {
          const args = 'BURROW_API_KEY' in env ? [] : ['--api-key', key]
          const { code, stderr } = await burrow([...args, 'up', '--stdio', 'node x.js'], env)
          assert.equal(code, 1, stderr)
          assert.match(stderr, said)
          assert.match(stderr, /--api-key \/ BURROW_API_KEY/)
          assert.ok(!stderr.includes('0123456789'), `the secret is echoed: ${stderr}`)
        }
      }
      // Hostile: a huge value gets the same one line, without the value.
      const { code, stderr } = await burrow(['up', '--stdio', 'x'], {
        BURROW_API_KEY: `btk_${'x'.repeat(100_000)}`,
      })
      assert.equal(code, 1)
      assert.equal(stderr.split('\n').length, 2)
      assert.ok(stderr.length < 400, `${stderr.length} characters`)
    })

    it('--broker http://… is the same service over ws://', async () => {
      const tunnel = await service.tunnel('http-broker')
      const http = service.broker.replace(/^ws:/, 'http:')
      const cli = startChild(
        process.execPath,
        [BURROW, '--broker', http, 'up', '--stdio', 'node -e "setInterval(() => {}, 1000)"'],
        { env: { ...process.env, ...QUIET, BURROW_API_KEY: tunnel.key } },
      )
      try {
        await cli.waitFor(/Tunnel online/)
      } finally {
        assert.equal(await cli.stop(), 0)
      }
    })
  })

  describe('the service', () => {
    it('a refused key: which service refused it, in words, exit 3', async () => {
      const { code, stderr } = await burrow(
        ['--broker', service.broker, 'up', '--stdio', 'node -e "setInterval(() => {}, 1000)"'],
        { BURROW_API_KEY: 'mtk_not-a-real-key' },
      )
      assert.equal(code, 3)
      assert.match(
        stderr,
        new RegExp(
          `^burrow: authentication failed: ${service.broker} refused the tunnel key \\(the key is unknown or was rotated\\); check --api-key / BURROW_API_KEY\n$`,
          'm',
        ),
      )
      assert.doesNotMatch(stderr, /WebSocket/)
    })

    it('nothing at the broker address: one line asks whether burrowd runs there and names --broker', async () => {
      const nowhere = `ws://127.0.0.1:${await freePort()}`
      const cli = startChild(
        process.execPath,
        [BURROW, '--broker', nowhere, 'up', '--stdio', 'node -e "setInterval(() => {}, 1000)"'],
        { env: { ...process.env, ...QUIET, BURROW_API_KEY: 'mtk_any' } },
      )
      try {
        await cli.waitFor(/could not connect[^\n]*\n[^]*could not connect/)
      } finally {
        assert.equal(await cli.stop('SIGINT'), 0)
      }
      const hints = cli.stderr.match(/cannot reach the Burrow service/g) ?? []
      assert.equal(hints.length, 1, cli.stderr)
      assert.match(
        cli.stderr,
        new RegExp(
          `cannot reach the Burrow service at ${nowhere} \\(connection refused\\): is burrowd running at that address\\? Set the address with --broker URL or BURROW_BROKER\\.`,
        ),
      )
      assert.match(
        cli.stderr,
        new RegExp(`could not connect to ${nowhere} \\(connection refused\\); reconnecting in`),
      )
      assert.doesNotMatch(cli.stdout, /Tunnel online/)
    })
  })

  describe('a single HTTP upstream', () => {
    it('that is down: a warning at start naming it, and the tunnel still goes online', async () => {
      const tunnel = await service.tunnel('down-upstream')
      const upstream = `http://127.0.0.1:${await freePort()}/mcp`
      const cli = startChild(
        process.execPath,
        [BURROW, '--broker', service.broker, 'up', '--upstream', upstream],
        { env: { ...process.env, ...QUIET, BURROW_API_KEY: tunnel.key } },
      )
      try {
        await cli.waitFor(/Tunnel online/)
      } finally {
        assert.equal(await cli.stop(), 0)
      }
      assert.match(
        cli.stderr,
        new RegExp(
          `WARN +nothing answers at ${upstream} \\(connection refused\\): start your MCP server there, or check the upstream URL`,
        ),
      )
    })

    it('that is up: no warning', async () => {
      const tunnel = await service.tunnel('live-upstream')
      const server = createServer((socket) => socket.destroy())
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
      const cli = startChild(
        process.execPath,
        [BURROW, '--broker', service.broker, 'up', '--upstream', upstream],
        { env: { ...process.env, ...QUIET, BURROW_API_KEY: tunnel.key } },
      )
      try {
        await cli.waitFor(/Tunnel online/)
      } finally {
        assert.equal(await cli.stop(), 0)
        server.close()
      }
      assert.doesNotMatch(cli.stderr, /nothing answers/)
    })
  })

  describe('a stdio command that does not exist', () => {
    it('is named, nothing goes online, and burrow exits 1 instead of retrying', async () => {
      const tunnel = await service.tunnel('missing-command')
      const { code, stdout, stderr } = await burrow(
        ['--broker', service.broker, 'up', '--stdio', 'burrow-test-no-such-server --flag'],
        { BURROW_API_KEY: tunnel.key },
      )
      assert.equal(code, 1)
      assert.match(
        stderr,
        /^burrow: command not found: burrow-test-no-such-server; check the spelling, or that its directory is in PATH$/m,
      )
      assert.doesNotMatch(stdout, /Tunnel online/)
      assert.doesNotMatch(stderr, /restarting in|ENOENT/)
    })

    it('behind a shell (status 127): the program the shell named, exit 1', async () => {
      const tunnel = await service.tunnel('missing-behind-shell')
      const { code, stderr } = await burrow(
        ['--broker', service.broker, 'up', '--stdio', 'sh -c burrow-test-no-such-server'],
        { BURROW_API_KEY: tunnel.key },
      )
      assert.equal(code, 1)
      assert.match(
        stderr,
        /^burrow: command not found: burrow-test-no-such-server \("sh -c burrow-test-no-such-server" exited with status 127: .*\); check the spelling, or that its directory is in PATH$/m,
      )
    })

    it('one of several upstreams: it is named and left down, the others serve', async () => {
      const tunnel = await service.tunnel('missing-one-of-two')
      const cli = startChild(
        process.execPath,
        [
          BURROW,
          '--broker',
          service.broker,
          'up',
          '--stdio',
          'gone=burrow-test-no-such-server',
          '--stdio',
          'here=node -e "setInterval(() => {}, 1000)"',
        ],
        { env: { ...process.env, ...QUIET, BURROW_API_KEY: tunnel.key } },
      )
      try {
        await cli.waitFor(/Tunnel online/)
        await cli.waitFor(/upstream "gone" is unavailable/)
      } finally {
        assert.equal(await cli.stop(), 0)
      }
      assert.match(
        cli.stderr,
        /upstream "gone" is unavailable: the stdio server failed to start \(command not found: burrow-test-no-such-server; check the spelling, or that its directory is in PATH\) and is not restarted/,
      )
    })
  })

  describe('inspector replay', () => {
    it('of a call whose session ended: sent in a new session, and the page is told so', async () => {
      const tunnel = await service.tunnel('replay-ended')
      const inspectPort = await freePort()
      const token = 'replay-token-0123456789'
      const cli = await startClient(service, tunnel.key, ['--stdio', `node "${EVERYTHING}"`], {
        ...QUIET,
        BURROW_INSPECT_ADDR: `127.0.0.1:${inspectPort}`,
        BURROW_INSPECT_TOKEN: token,
      })
      try {
        const { client, transport } = await connectAgent(tunnel.url)
        const said = await client.callTool({ name: 'echo', arguments: { message: 'first' } })
        assert.equal(firstText(said), 'Echo: first')
        const ended = transport.sessionId!
        await transport.terminateSession()
        await client.close()
        const api = `http://127.0.0.1:${inspectPort}/api/traffic`
        const auth = { authorization: `Bearer ${token}` }
        const { exchanges } = (await (await fetch(api, { headers: auth })).json()) as {
          exchanges: { id: number; toolName: string | null }[]
        }
        const call = exchanges.find((e) => e.toolName === 'echo')!
        const res = await fetch(`${api}/${call.id}/replay`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: '{}',
        })
        assert.equal(res.status, 200)
        const replay = (await res.json()) as {
          status: number
          error: string | null
          note: string | null
          body: { text: string } | null
          messages: { message: unknown }[]
        }
        assert.equal(replay.status, 200)
        assert.equal(replay.error, null)
        assert.match(
          replay.note ?? '',
          new RegExp(
            `^session ${ended} had ended \\(the server answered 404\\), so this call was sent in a new session, \\S+, opened with the agent's initialize`,
          ),
        )
        const answer = replay.body?.text ?? JSON.stringify(replay.messages.map((m) => m.message))
        assert.match(answer, /Echo: first/)
      } finally {
        assert.equal(await cli.stop(), 0)
      }
    })
  })
})
