/**
 * Several burrowd nodes sharing PostgreSQL and Redis behind a real nginx (Debian's), with a real
 * `burrow up` that connects through nginx to one of them: an agent whose requests land on the
 * other node reaches the tunnel (forwarded over the node link), including a streamed SSE answer
 * and a 20 MB body both ways; through nginx, where requests alternate between the nodes; the
 * tool-call quota stays exact when 200 concurrent calls split across both nodes meet a
 * remaining 100; draining the holding node under steady traffic through nginx loses no request;
 * after `kill -9` of the holder a call forwarded to it gets the envelope, the client reattaches to
 * the other node and the agent's session goes on, counted once; rate limits and the session cap
 * are exact across nodes, and policy and plan changes made on one node apply on the other; an access mode changed on one node is told to the client held by the other; forged node links are refused; and a tunnel deleted on one node has its
 * client cut off by the other.
 */
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { WebSocket } from 'ws'
import {
  testBackends,
  type TestDatabase,
} from '../../packages/server/test/helpers/test-databases.js'
import { connectAgent, firstText } from '../helpers/agent-scenario.js'
import { startChild, type Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { publicFetch } from '../helpers/public-fetch.js'
import {
  initializeMessage,
  liveCounter,
  openSession,
  openStream,
  postMcp,
  startCountingServer,
  strayCallWaiting,
  toolCall,
  type CountingServer,
} from '../helpers/quota-stack.js'
import { buyPlan } from '../helpers/dev-checkout.js'
import { bearerApi } from '../helpers/web-client.js'
import { BURROW, BURROWD, EVERYTHING, type Service } from '../helpers/stack.js'
import { burrowdLocation, nginxTempPaths } from '../helpers/nginx-front.js'

const run = promisify(execFile)
const NGINX = '/usr/sbin/nginx'
const postgres = testBackends().find((b) => b.name === 'postgres')
const redisUrl = process.env.TEST_REDIS_URL
const skip =
  postgres === undefined || !redisUrl || !existsSync(NGINX)
    ? 'needs TEST_DATABASE_URL, TEST_REDIS_URL and nginx'
    : false

interface Node {
  readonly name: string
  readonly port: number
  readonly env: NodeJS.ProcessEnv
  proc: Child
}

/**
 * nginx in front of `ports`, on `listen`, passing WebSockets and streams through, with its
 * connections to the nodes kept alive as deploy/nginx.conf keeps them.
 */
function nginxConfig(dir: string, listen: number, ports: readonly number[]): string {
  return `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
${nginxTempPaths(dir)}
  map $http_upgrade $connection_upgrade { default upgrade; '' ''; }
  upstream burrowd {
${ports.map((p) => `    server 127.0.0.1:${p} max_fails=0;`).join('\n')}
    keepalive 64;
    keepalive_timeout 60s;
  }
  server {
    listen 127.0.0.1:${listen};
    client_max_body_size 64m;
${burrowdLocation('300s')}
  }
}
`
}

describe('several burrowd nodes behind nginx', { skip, timeout: 240_000 }, () => {
  let database: TestDatabase
  let dir: string
  let nginx: Child
  let lbPort: number
  const nodes: Node[] = []
  let client: Child
  let counting: CountingServer
  let tunnel: { id: string; subdomain: string }
  let holder: Node
  let other: Node

  const urlVia = (port: number) => `http://${tunnel.subdomain}--acme.localhost:${port}/mcp`
  /** A public tunnel of account acme, made by the operator. */
  const createTunnel = async (name: string) => {
    const made = await run(
      process.execPath,
      [
        BURROWD,
        'tunnel',
        'create',
        '--account',
        'acme',
        '--name',
        name,
        '--access',
        'public',
        '--json',
      ],
      { env: nodes[0]!.env },
    )
    return JSON.parse(made.stdout) as { id: string; key: string; subdomain: string }
  }

  before(async () => {
    database = await postgres!.create()
    dir = mkdtempSync(join(tmpdir(), 'burrow-nodes-'))
    lbPort = await freePort()
    const base: NodeJS.ProcessEnv = {
      ...process.env,
      BURROW_DATABASE_URL: database.config.databaseUrl!,
      BURROW_REDIS_URL: redisUrl,
      BURROW_PUBLIC_PORT: String(lbPort),
      BURROW_MAX_BODY_BYTES: String(32 * 1024 * 1024),
      BURROW_LOG: 'info',
    }
    for (const name of ['a', 'b']) {
      const port = await freePort()
      const env = {
        ...base,
        BURROW_DATA_DIR: join(dir, name),
        BURROW_LISTEN: `127.0.0.1:${port}`,
      }
      nodes.push({ name, port, env, proc: undefined as unknown as Child })
    }
    const operator = nodes[0]!.env
    await run(
      process.execPath,
      [
        BURROWD,
        'account',
        'create',
        '--email',
        'n@example.com',
        '--slug',
        'acme',
        '--plan',
        'scale',
        '--json',
      ],
      { env: operator },
    )
    const t = await createTunnel('shared')
    tunnel = { id: t.id, subdomain: t.subdomain }
    for (const node of nodes) {
      node.proc = startChild(process.execPath, [BURROWD, 'serve'], { env: node.env })
      await node.proc.waitFor(/burrowd listening/)
    }
    writeFileSync(
      join(dir, 'nginx.conf'),
      nginxConfig(
        dir,
        lbPort,
        nodes.map((n) => n.port),
      ),
    )
    nginx = startChild(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'])
    for (let i = 0; i < 50; i++) {
      const up = await fetch(`http://127.0.0.1:${lbPort}/healthz`).catch(() => null)
      if (up?.ok) break
      await new Promise((r) => setTimeout(r, 100))
    }
    counting = await startCountingServer()
    client = startChild(
      process.execPath,
      [
        BURROW,
        '--broker',
        `ws://127.0.0.1:${lbPort}`,
        'up',
        '--stdio',
        `e=node "${EVERYTHING}" stdio`,
        '--upstream',
        `c=${counting.url}`,
      ],
      { env: { ...process.env, BURROW_API_KEY: t.key, BURROW_LOG: 'info' } },
    )
    await client.waitFor(/Tunnel online/)
    const redis = new Redis(redisUrl!)
    try {
      const entry = await redis.hgetall(`burrow:dir:${tunnel.id}`)
      assert.ok(entry.node, 'the holding node is in the directory')
      const holderName = nodes.find((n) => entry.url === `http://127.0.0.1:${n.port}`)
      assert.ok(holderName, `directory entry ${JSON.stringify(entry)}`)
      holder = holderName
      other = nodes.find((n) => n !== holder)!
    } finally {
      await redis.quit()
    }
  })

  after(async () => {
    await client?.stop()
    await counting?.child.stop()
    await nginx?.stop()
    for (const node of nodes) await node.proc?.stop()
    await database?.drop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('serves an agent on the node that does not hold the tunnel: calls, SSE progress, 20 MB', async () => {
    const { client: agent } = await connectAgent(urlVia(other.port))
    try {
      const tools = await agent.listTools()
      assert.ok(tools.tools.some((x) => x.name === 'e__echo'))
      assert.equal(
        firstText(await agent.callTool({ name: 'e__echo', arguments: { message: 'across' } })),
        'Echo: across',
      )
      const progress: number[] = []
      await agent.callTool(
        { name: 'e__trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
        undefined,
        { onprogress: (p) => progress.push(p.progress) },
      )
      assert.deepEqual(progress, [1, 2, 3], 'progress streamed event by event across nodes')
      const big = 'x'.repeat(20 * 1024 * 1024)
      const echoed = firstText(
        await agent.callTool({ name: 'c__echo', arguments: { message: big } }),
      )
      assert.equal(echoed.length, big.length + 'Echo: '.length)
    } finally {
      await agent.close()
    }
    assert.match(
      other.proc.stderr + other.proc.stdout,
      /cluster: node node_\w+ at http:\/\/127\.0\.0\.1/,
    )
  })

  it("cuts a padded listing slipped onto a call's answer on one node while the agent lists on the other", async () => {
    // A server answers a call with the answer to the agent's pending tools/list, padded past
    // what the edge reads of an answer: the node relaying it can only tell by the listing in
    // flight, which the agent sent to the other node.
    const t = await createTunnel('strays')
    const strays = startChild(
      process.execPath,
      [BURROW, '--broker', `ws://127.0.0.1:${lbPort}`, 'up', '--upstream', counting.url],
      { env: { ...process.env, BURROW_API_KEY: t.key, BURROW_LOG: 'info' } },
    )
    try {
      await strays.waitFor(/Tunnel online/)
      const via = (node: Node) => `http://${t.subdomain}--acme.localhost:${node.port}/mcp`
      const [a, b] = [nodes[0]!, nodes[1]!]
      const session = await openSession(via(a))
      const calling = postMcp(
        via(b),
        toolCall(7, 'stray_listing', { pad: 17_000_000, hold: 3_000 }),
        session,
      ).then(
        (r) => r,
        () => null, // ended short
      )
      // The call waits at the server before the listing is sent (a pause of 200 ms was not
      // always enough on a busy machine: the listing came first, and the call's answer was
      // slipped later, under its own id, with no listing in flight to cut it for).
      await strayCallWaiting(counting)
      const listing = await postMcp(
        via(a),
        { jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} },
        session,
      )
      assert.equal(listing.status, 200, listing.text)
      assert.doesNotMatch(listing.text, /Always call me first/)
      const refused = await calling
      if (refused !== null) {
        assert.equal(refused.status, 502, refused.text.slice(0, 300))
        assert.doesNotMatch(refused.text, /Always call me first/)
      }
    } finally {
      await strays.stop()
    }
  })

  it('serves agents through nginx, whichever node each request lands on', async () => {
    const { client: agent } = await connectAgent(urlVia(lbPort))
    try {
      for (let i = 0; i < 6; i++) {
        const text = firstText(
          await agent.callTool({ name: 'c__echo', arguments: { message: `lb ${i}` } }),
        )
        assert.equal(text, `Echo: lb ${i}`)
      }
    } finally {
      await agent.close()
    }
  })

  it('keeps the tool-call quota exact when 200 calls split across nodes meet 100 remaining', async () => {
    const SCALE_CALLS = 5_000_000
    await run(
      process.execPath,
      [
        BURROWD,
        'usage',
        'set',
        '--tunnel',
        tunnel.id,
        '--tool-calls',
        String(SCALE_CALLS - 100),
        '--json',
      ],
      { env: holder.env },
    )
    const sessions = await Promise.all(nodes.map((n) => openSession(urlVia(n.port))))
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        const n = i % 2
        return postMcp(
          urlVia(nodes[n]!.port),
          toolCall(i, 'c__echo', { message: String(i) }),
          sessions[n],
        )
      }),
    )
    const passed = answers.filter((a) => a.status === 200).length
    const refused = answers.filter((a) => a.status === 429).length
    assert.equal(passed, 100, `passed ${passed}, refused ${refused}`)
    assert.equal(refused, 100)
    const service = { env: holder.env, dataDir: '' } as unknown as Service
    assert.equal(await liveCounter(service, tunnel.id, 'tool_calls'), SCALE_CALLS)
    await run(
      process.execPath,
      [BURROWD, 'usage', 'set', '--tunnel', tunnel.id, '--tool-calls', '0', '--json'],
      { env: holder.env },
    )
  })

  /** An API caller with a token of account `slug`, on `node`. */
  function apiOf(node: Node, slug: string) {
    const { token } = JSON.parse(
      execFileSync(process.execPath, [BURROWD, 'token', 'create', '--account', slug, '--json'], {
        env: node.env,
      }).toString(),
    ) as { token: string }
    return bearerApi(`http://127.0.0.1:${node.port}`, token)
  }

  it('keeps a rate limit exact when concurrent calls split across nodes', async () => {
    const api = apiOf(holder, 'acme')
    const set = await api('PUT', `/api/tunnels/${tunnel.id}/policy`, {
      rate_limits: [{ tool: 'c__echo', limit: 10, per_seconds: 3600 }],
    })
    assert.equal(set.status, 200, JSON.stringify(set.json))
    try {
      const sessions = await Promise.all(nodes.map((n) => openSession(urlVia(n.port))))
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          postMcp(
            urlVia(nodes[i % 2]!.port),
            toolCall(`r${i}`, 'c__echo', { message: String(i) }),
            sessions[i % 2],
          ),
        ),
      )
      assert.equal(answers.filter((a) => a.status === 200).length, 10)
      const limited = answers.filter((a) => a.status === 429)
      assert.equal(limited.length, 30)
      assert.ok(limited.every((a) => a.headers.get('x-burrow-error') === 'rate_limited'))
    } finally {
      await api('PUT', `/api/tunnels/${tunnel.id}/policy`, {})
    }
  })

  it('a policy saved on one node applies on the other at its next request', async () => {
    const [a, b] = nodes as [Node, Node]
    const api = apiOf(a, 'acme')
    const viaB = urlVia(b.port)
    const session = await openSession(viaB)
    const before = await postMcp(viaB, toolCall('p1', 'c__echo', { message: 'x' }), session)
    assert.equal(before.status, 200, before.text)
    try {
      const denied = await api('PUT', `/api/tunnels/${tunnel.id}/policy`, {
        tools: { deny: ['c__echo'] },
      })
      assert.equal(denied.status, 200, JSON.stringify(denied.json))
      const refused = await postMcp(viaB, toolCall('p2', 'c__echo', { message: 'x' }), session)
      assert.equal(refused.status, 403, refused.text)
      assert.equal(refused.headers.get('x-burrow-error'), 'tool_denied')
    } finally {
      await api('PUT', `/api/tunnels/${tunnel.id}/policy`, {})
    }
    const after = await postMcp(viaB, toolCall('p3', 'c__echo', { message: 'x' }), session)
    assert.equal(after.status, 200, after.text)
  })

  it('an access mode changed on the node that does not hold the tunnel is told to its client', async () => {
    const api = apiOf(other, 'acme')
    const path = `/api/tunnels/${tunnel.id}/access`
    const changed = (mode: string) => api('PUT', path, { mode })
    try {
      assert.equal((await changed('token')).status, 200)
      await client.waitFor(/The tunnel's access changed: agents that send an agent token/)
    } finally {
      assert.equal((await changed('public')).status, 200)
      await client.waitFor(/The tunnel's access changed: anyone with the URL/)
    }
  })

  it('the session cap holds across nodes, and a plan upgrade processed on one node raises the limits on the other at its next request', async () => {
    const [a, b] = nodes as [Node, Node]
    await run(
      process.execPath,
      [BURROWD, 'account', 'create', '--email', 'f@example.com', '--slug', 'freeco', '--json'],
      { env: a.env },
    )
    const made = JSON.parse(
      (
        await run(
          process.execPath,
          [BURROWD, 'tunnel', 'create', '--account', 'freeco', '--access', 'public', '--json'],
          { env: a.env },
        )
      ).stdout,
    ) as { id: string; key: string; subdomain: string }
    const freeClient = startChild(
      process.execPath,
      [BURROW, '--broker', `ws://127.0.0.1:${a.port}`, 'up', '--upstream', counting.url],
      { env: { ...process.env, BURROW_API_KEY: made.key, BURROW_LOG: 'info' } },
    )
    try {
      await freeClient.waitFor(/Tunnel online/)
      const onA = `http://${made.subdomain}--freeco.localhost:${a.port}/mcp`
      const onB = `http://${made.subdomain}--freeco.localhost:${b.port}/mcp`
      // Free's three sessions, in use (their GET streams open), split across the nodes: the
      // fourth is refused on either node.
      const streams = []
      for (const url of [onA, onB, onA]) streams.push(await openStream(url, await openSession(url)))
      try {
        for (const url of [onA, onB]) {
          const fourth = await postMcp(url, initializeMessage('fourth'))
          assert.equal(fourth.status, 429, fourth.text)
          assert.equal(fourth.headers.get('x-burrow-error'), 'session_limit')
        }
      } finally {
        for (const stream of streams) stream.close()
      }
      const FREE_CALLS = 100_000
      await run(
        process.execPath,
        [
          BURROWD,
          'usage',
          'set',
          '--tunnel',
          made.id,
          '--tool-calls',
          String(FREE_CALLS),
          '--json',
        ],
        { env: a.env },
      )
      const session = await openSession(onB)
      const refused = await postMcp(onB, toolCall('f1', 'echo', { message: 'x' }), session)
      assert.equal(refused.status, 429, 'node B knows the Free limit')
      assert.equal(refused.headers.get('x-burrow-error'), 'quota_exceeded')
      // Pro is bought through node A: its payment webhook is processed there.
      await buyPlan(`http://127.0.0.1:${a.port}`, apiOf(a, 'freeco'), 'pro')
      const passed = await postMcp(onB, toolCall('f2', 'echo', { message: 'x' }), session)
      assert.equal(passed.status, 200, `node B still applied the old plan: ${passed.text}`)
    } finally {
      await freeClient.stop()
    }
  })

  it('refuses node links without the cluster secret', async () => {
    for (const authorization of ['Burrow-Node forged', `Burrow-Node ${'a'.repeat(5000)}`, '']) {
      const status = await new Promise<number>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${holder.port}/_burrow/nodes`, {
          headers: authorization ? { authorization } : {},
        })
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
        ws.on('open', () => resolve(101))
        ws.on('error', () => resolve(-1))
      })
      assert.equal(status, 401, `node link with "${authorization.slice(0, 30)}"`)
    }
    assert.match(
      holder.proc.stderr + holder.proc.stdout,
      /refused \d+ node links? without a valid token/,
    )
  })

  /** The node the directory says holds the tunnel now. */
  async function currentHolder(): Promise<Node | undefined> {
    const redis = new Redis(redisUrl!)
    try {
      const entry = await redis.hgetall(`burrow:dir:${tunnel.id}`)
      return nodes.find((n) => entry.url === `http://127.0.0.1:${n.port}`)
    } finally {
      await redis.quit()
    }
  }

  async function waitForHolder(not: Node): Promise<Node> {
    for (let i = 0; i < 400; i++) {
      const h = await currentHolder()
      if (h && h !== not) return h
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error('no other node took the tunnel')
  }

  async function restart(node: Node): Promise<void> {
    node.proc = startChild(process.execPath, [BURROWD, 'serve'], { env: node.env })
    await node.proc.waitFor(/burrowd listening/)
  }

  it('draining the holding node under steady traffic loses no request', async () => {
    const drained = holder
    const session = await openSession(urlVia(lbPort))
    const results: number[] = []
    /** What the failed requests were answered. */
    const answers: string[] = []
    let stop = false
    const traffic = (async () => {
      for (let i = 0; !stop; i++) {
        const a = await postMcp(
          urlVia(lbPort),
          toolCall(i, 'c__echo', { message: `d${i}` }),
          session,
        )
        results.push(a.status)
        if (a.status !== 200) answers.push(`${a.status}: ${a.text.slice(0, 300)}`)
      }
    })()
    try {
      while (results.length < 20) await new Promise((r) => setTimeout(r, 20))
      const ready = await fetch(`http://127.0.0.1:${drained.port}/readyz`)
      assert.equal(ready.status, 200)
      assert.equal(await ready.text(), 'ready\n')
      const exited = drained.proc.stop('SIGTERM', 30_000)
      holder = await waitForHolder(drained)
      await exited
      const after = results.length
      while (results.length < after + 20) await new Promise((r) => setTimeout(r, 20))
    } finally {
      stop = true
      await traffic
      await restart(drained)
      other = drained
    }
    const failed = results.filter((s) => s !== 200)
    assert.deepEqual(
      failed,
      [],
      `${failed.length} of ${results.length} requests failed: ${answers.join('; ')}`,
    )
    assert.notEqual(holder, drained)
  })

  it('kill -9 of the holding node: the client reattaches elsewhere and sessions continue', async () => {
    const killed = holder
    const session = await openSession(urlVia(lbPort))
    const before = await postMcp(
      urlVia(lbPort),
      toolCall('k0', 'c__echo', { message: 'k0' }),
      session,
    )
    assert.equal(before.status, 200)
    const counted = await liveCounter(
      { env: killed.env } as unknown as Service,
      tunnel.id,
      'tool_calls',
    )
    const resumes = () =>
      (client.stdout + client.stderr).match(/reconnected; the session continues/g)?.length ?? 0
    const resumedBefore = resumes()
    // A slow call forwarded from the other node to the holder is in flight when the holder dies.
    const viaOther = urlVia(other.port)
    const otherSession = await openSession(viaOther)
    const inFlight = postMcp(
      viaOther,
      toolCall('slow', 'e__trigger-long-running-operation', { duration: 20, steps: 2 }),
      otherSession,
    )
    await new Promise((r) => setTimeout(r, 500))
    await killed.proc.stop('SIGKILL')
    const cut = await inFlight
    assert.ok(cut.status >= 500, `the cut call answered ${cut.status}: ${cut.text}`)
    assert.ok(cut.headers.get('x-burrow-error'), cut.text)
    assert.equal((cut.json as { id: unknown }).id, 'slow')
    assert.match(
      String(cut.headers.get('x-burrow-error')),
      /^(tunnel_offline|upstream_unreachable)$/,
    )
    try {
      holder = await waitForHolder(killed)
      // The same MCP session goes on through the other node.
      let answer = await postMcp(
        urlVia(holder.port),
        toolCall('k1', 'c__echo', { message: 'k1' }),
        session,
      )
      for (let i = 0; answer.status !== 200 && i < 50; i++) {
        await new Promise((r) => setTimeout(r, 200))
        answer = await postMcp(
          urlVia(holder.port),
          toolCall('k1', 'c__echo', { message: 'k1' }),
          session,
        )
      }
      assert.equal(answer.status, 200, answer.text)
      // The other node took the resume token the dead one issued: the tunnel resumed.
      const deadline = Date.now() + 20_000
      while (resumes() === resumedBefore && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100))
      }
      assert.equal(resumes(), resumedBefore + 1, 'the client resumed its session elsewhere')
      assert.equal(
        await liveCounter({ env: holder.env } as unknown as Service, tunnel.id, 'tool_calls'),
        counted + 2,
        'nothing counted twice (the cut call and k1, once each)',
      )
    } finally {
      if (killed.proc.proc.exitCode !== null || killed.proc.proc.signalCode !== null)
        await restart(killed)
      other = killed
    }
  })

  it('a tunnel deleted on one node has its client cut off by the node holding it', async () => {
    const token = JSON.parse(
      execFileSync(process.execPath, [BURROWD, 'token', 'create', '--account', 'acme', '--json'], {
        env: other.env,
      }).toString(),
    ) as { token: string }
    const res = await fetch(`http://127.0.0.1:${other.port}/api/tunnels/${tunnel.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token.token}` },
    })
    assert.equal(res.status, 204)
    await client.waitFor(/authentication failed|deleted|rotated|key/i, 20_000)
    const gone = await publicFetch(urlVia(other.port), { method: 'POST', body: '{}' })
    assert.equal(gone.status, 401, 'a tunnel that no longer exists answers as an unknown one')
  })
})
