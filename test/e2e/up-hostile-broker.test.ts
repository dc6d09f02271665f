/**
 * A hostile broker against a real `burrow up` (found by a hostile review): what `up` prints on
 * the terminal from WELCOME and NOTICE must not carry terminal escape sequences, whatever the
 * broker writes in the fields the codec does not check (the public URL, the tunnel id). The mode
 * and the Access tab's URL are checked by the codec (packages/protocol/test/access-note.test.ts).
 * A heartbeat interval too long for a timer must not become a ping every millisecond.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, it } from 'node:test'
import { decodeFrame, encodeFrame, PROTOCOL_VERSION, type Frame } from '@burrow/protocol'
import { WebSocketServer } from 'ws'
import { startChild, type Child } from '../helpers/child.js'
import { BURROW } from '../helpers/stack.js'

/** Clear the screen, set the window title, a C1 CSI, a right-to-left override, a line separator. */
const HOSTILE = '\u001b[2J\u001b]0;pwned\u0007\u009b31m\u202e\u2028'

/** The heartbeat interval the broker asks of a client whose `--name` is `slow-beat`. */
const TOO_LONG_MS = 3_000_000_000

let wss: WebSocketServer
let port = 0
/** WebSocket pings the broker got from `up`. */
let pings = 0
let deadPort = 0
const clients: Child[] = []

before(async () => {
  wss = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  await new Promise((resolve) => wss.once('listening', resolve))
  port = (wss.address() as { port: number }).port
  // A port nothing listens on, for the upstream: `up` warns and goes online anyway.
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  deadPort = (probe.address() as { port: number }).port
  await new Promise((resolve) => probe.close(resolve))
  wss.on('connection', (ws) => {
    ws.on('ping', () => pings++)
    ws.on('message', (data) => {
      const frame = decodeFrame(data as Buffer)
      if (frame.type !== 'hello') return
      const send = (f: Frame) => ws.send(encodeFrame(f))
      send({
        type: 'welcome',
        welcome: {
          version: PROTOCOL_VERSION,
          tunnelId: `tun_${HOSTILE}`,
          publicUrl: `http://a--b.localhost:7100/${HOSTILE}`,
          resumeToken: 'r',
          resumed: false,
          graceSecs: 30,
          heartbeatMs: frame.hello.name === 'slow-beat' ? TOO_LONG_MS : 60_000,
          access: { mode: 'token', url: 'http://localhost:7100/dashboard/tunnels/t/access' },
        },
      })
      send({ type: 'notice', notice: { access: { mode: 'oauth' } } })
    })
  })
})

after(async () => {
  for (const c of clients) await c.stop()
  wss.close()
})

/** `burrow up` against the fake broker, with `args` after `up`. */
function up(...args: string[]): Child {
  const child = startChild(
    process.execPath,
    [
      BURROW,
      '--broker',
      `ws://127.0.0.1:${port}`,
      'up',
      '--upstream',
      `http://127.0.0.1:${deadPort}/mcp`,
      ...args,
    ],
    { env: { ...process.env, BURROW_API_KEY: 'mtk_hostile', BURROW_LOG: 'info' } },
  )
  clients.push(child)
  return child
}

it('prints no escape sequence a broker put in the public URL or the tunnel id', async () => {
  const child = up()
  await child.waitFor(/The tunnel's access changed/)
  const printed = child.stdout + child.stderr
  assert.match(printed, /Tunnel online:/)
  assert.match(printed, /POST \/api\/tunnels\/tun_/)
  for (const c of ['\u001b', '\u0007', '\u009b', '\u202e', '\u2028']) {
    assert.ok(
      !printed.includes(c),
      `printed U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}:\n${JSON.stringify(printed)}`,
    )
  }
  // What was escaped is still shown, as text.
  assert.match(printed, /Tunnel online: +http:\/\/a--b\.localhost:7100\/\\x1b\[2J/)
})

it('a heartbeat interval past what a timer holds is not taken as one millisecond', async () => {
  pings = 0
  const child = up('--name', 'slow-beat')
  await child.waitFor(/The tunnel's access changed/)
  await child.stop()
  assert.doesNotMatch(child.stderr, /TimeoutOverflowWarning/)
  assert.equal(pings, 0, 'up pinged the broker as if asked to every millisecond')
})
