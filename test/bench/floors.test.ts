// The benchmark's floors pass the cells' traffic: each pair of hops stands in front of the same
// fixtures the bench measures and must hand back their answers unchanged, or the numbers printed
// beside Burrow's would be of errors. nginx is Debian's, as `.ci/run` installs it.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import {
  FIXTURES,
  startFixture,
  startHttpProxyPair,
  startLeanProxyPair,
  startRelayPair,
  type HopPair,
} from '../../bench/launch.js'
import { loopbackPool } from '../../bench/loopback.js'
import { toolCallBody } from '../../bench/load.js'
import { nginxConfig, startNginxPair } from '../../bench/nginx-proxies.js'
import { findExecutable } from '../../bench/peers/system-tools.js'
import { ProcessGroup } from '../../bench/processes.js'

const group = new ProcessGroup()
let rpcPort = 0
let bulkPort = 0

before(async () => {
  rpcPort = (await startFixture(group, FIXTURES.rpcHttp)).port
  bulkPort = (await startFixture(group, FIXTURES.bulk)).port
})
after(() => group.stopAll())

/** POST `body` to `/mcp` on `port`; the status and the answer's bytes. */
async function post(port: number, body: string): Promise<{ status: number; bytes: Buffer }> {
  const pool = loopbackPool(`http://127.0.0.1:${port}`, 1)
  try {
    const res = await pool.request({
      path: '/mcp',
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
    })
    return { status: res.statusCode, bytes: Buffer.from(await res.body.arrayBuffer()) }
  } finally {
    await pool.destroy()
  }
}

/** Start `start`'s pair in front of `port`, run `check` on it, and stop it. */
async function through(
  start: (g: ProcessGroup, port: number) => Promise<HopPair>,
  port: number,
  check: (pair: HopPair) => Promise<void>,
): Promise<void> {
  const pair = await start(group, port)
  try {
    await check(pair)
  } finally {
    for (const child of pair.children) await group.stop(child)
    pair.cleanup?.()
  }
}

/** The bench installs nginx where it may; a test only uses the one that is there. */
const noNginx = findExecutable('nginx', ['/usr/sbin', '/usr/local/sbin']) === null && 'needs nginx'

const FLOORS = {
  'two TCP relays': startRelayPair,
  'two node:http proxies': startHttpProxyPair,
  'two nginx proxies': startNginxPair,
  'two lean proxies': startLeanProxyPair,
}

for (const [name, start] of Object.entries(FLOORS)) {
  const skip = name === 'two nginx proxies' && noNginx
  test(
    `${name} hand back the small call's answer, call after call on one connection`,
    { skip },
    async () => {
      await through(start, rpcPort, async (pair) => {
        const direct = await post(rpcPort, toolCallBody(7))
        for (let i = 0; i < 3; i++) {
          const relayed = await post(pair.port, toolCallBody(7))
          assert.equal(relayed.status, 200)
          assert.deepEqual(
            JSON.parse(relayed.bytes.toString()),
            JSON.parse(direct.bytes.toString()),
          )
        }
      })
    },
  )
}

for (const name of ['two TCP relays', 'two node:http proxies', 'two nginx proxies'] as const) {
  const skip = name === 'two nginx proxies' && noNginx
  test(`${name} stream a 10 MiB answer whole`, { skip }, async () => {
    await through(FLOORS[name], bulkPort, async (pair) => {
      const bytes = 10 * 1024 * 1024
      const relayed = await post(
        pair.port,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'bulk', params: { bytes } }),
      )
      assert.equal(relayed.status, 200)
      assert.equal(relayed.bytes.length, bytes)
    })
  })
}

test("nginx's configuration proxies to the next hop with keep-alive and no buffering", () => {
  const conf = nginxConfig('floor', 8080, 9090)
  assert.match(conf, /listen 127\.0\.0\.1:8080;/)
  assert.match(conf, /server 127\.0\.0\.1:9090; keepalive \d+;/)
  assert.match(conf, /proxy_buffering off;/)
  assert.match(conf, /proxy_request_buffering off;/)
  assert.match(conf, /proxy_set_header Connection "";/)
})
