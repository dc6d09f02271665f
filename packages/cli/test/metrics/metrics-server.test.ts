/**
 * The metrics listener on a real socket: `/metrics` in the Prometheus text format, `/healthz`
 * → ok, 404 elsewhere, loopback Host names only; and a bind failure that only warns and returns
 * null, so `up` goes on forwarding.
 */
import assert from 'node:assert/strict'
import { hostname, networkInterfaces } from 'node:os'
import { createServer, request, type OutgoingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { CliMetrics } from '../../src/metrics/cli-metrics.js'
import { startMetrics, type MetricsServer } from '../../src/metrics/metrics-server.js'
import { captureLogger } from '../helpers/capture-logger.js'
import { idleSocket } from '../helpers/idle-socket.js'

interface Reply {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: string
}

function get(
  address: string,
  path: string,
  opts: { method?: string; headers?: OutgoingHttpHeaders } = {},
): Promise<Reply> {
  const url = new URL(`http://${address}${path}`)
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: opts.method ?? 'GET', headers: opts.headers, agent: false },
      (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (c: string) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

describe('startMetrics', () => {
  const metrics = new CliMetrics()
  const log = captureLogger()
  let server: MetricsServer

  before(async () => {
    const started = await startMetrics('127.0.0.1:0', metrics.registry, log)
    assert.ok(started, 'the listener started')
    server = started
  })
  after(async () => {
    await server?.close()
  })

  it('serves the counters at /metrics in the Prometheus text format', async () => {
    metrics.upstreamFailure('db')
    metrics.request('default', 'tools/call')
    const res = await get(server.address, '/metrics')
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-type'], metrics.registry.contentType)
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/)
    assert.match(res.body, /^burrow_upstream_failures_total\{upstream="db"\} 1$/m)
    assert.match(
      res.body,
      /^burrow_upstream_requests_total\{upstream="default",method="tools\/call"\} 1$/m,
    )
  })

  it('answers /healthz with ok', async () => {
    const res = await get(server.address, '/healthz')
    assert.equal(res.status, 200)
    assert.equal(res.body, 'ok')
  })

  it('answers 404 for other paths and 405 for other methods', async () => {
    assert.equal((await get(server.address, '/')).status, 404)
    assert.equal((await get(server.address, '/metrics/x')).status, 404)
    const post = await get(server.address, '/metrics', { method: 'POST' })
    assert.equal(post.status, 405)
    assert.equal(post.headers.allow, 'GET, HEAD')
  })

  it('refuses a Host that is not a loopback name (DNS rebinding)', async () => {
    const port = server.address.split(':').pop()!
    const rebound = await get(server.address, '/metrics', {
      headers: { host: `evil.example:${port}` },
    })
    assert.equal(rebound.status, 403)
    assert.ok(!rebound.body.includes('burrow_'))
    // Found by hostile review: the refusal named the machine (often its owner's name), which a
    // rebinding page reads, and which is a Host this listener answers.
    assert.ok(!rebound.body.toLowerCase().includes(hostname().toLowerCase()), rebound.body)
    // Names that only start like a loopback address are names a rebinding attacker can hold.
    for (const name of ['127.0.0.1.evil.example', '127.attacker.example', '127.0.0.256']) {
      const lookalike = await get(server.address, '/metrics', {
        headers: { host: `${name}:${port}` },
      })
      assert.equal(lookalike.status, 403, name)
    }
    const other = await get(server.address, '/healthz', { headers: { host: `127.3.2.1:${port}` } })
    assert.equal(other.status, 200)
    const named = await get(server.address, '/healthz', { headers: { host: `localhost:${port}` } })
    assert.equal(named.status, 200)
  })

  it('logs where it listens', () => {
    assert.ok(
      log.lines.some((l) => l === `INFO  metrics: serving http://${server.address}/metrics`),
    )
  })
})

describe('startMetrics on a loopback address not written as four numbers', () => {
  it('still refuses a Host that is not a loopback name', async () => {
    const metrics = new CliMetrics()
    for (const host of ['127.1', '2130706433']) {
      const server = await startMetrics(`${host}:0`, metrics.registry, captureLogger())
      assert.ok(server, host)
      try {
        assert.match(server.address, /^127\.0\.0\.1:\d+$/, host)
        const rebound = await get(server.address, '/metrics', {
          headers: { host: 'rebind.attacker.example' },
        })
        assert.equal(rebound.status, 403, host)
        assert.equal((await get(server.address, '/healthz')).status, 200, host)
      } finally {
        await server.close()
      }
    }
  })
})

describe('startMetrics on an IPv4-mapped loopback address', () => {
  it('refuses a Host that is not a loopback name', async () => {
    // Found by hostile review: Node reports [::ffff:7f00:1] as ::ffff:127.0.0.1, which was not
    // taken for loopback, so the DNS-rebinding check was skipped (200 for any Host).
    const metrics = new CliMetrics()
    for (const host of ['[::ffff:7f00:1]', '[::ffff:127.0.0.1]']) {
      const server = await startMetrics(`${host}:0`, metrics.registry, captureLogger())
      assert.ok(server, host)
      try {
        const port = server.address.split(':').pop()!
        const rebound = await get(`127.0.0.1:${port}`, '/metrics', {
          headers: { host: `rebind.attacker.example:${port}` },
        })
        assert.equal(rebound.status, 403, host)
        const own = await get(`127.0.0.1:${port}`, '/healthz', {
          headers: { host: `[::ffff:7f00:1]:${port}` },
        })
        assert.equal(own.status, 200, host)
      } finally {
        await server.close()
      }
    }
  })
})

describe('startMetrics on every address (0.0.0.0, [::])', () => {
  it('refuses a Host that is not a loopback name on a request that came over loopback', async () => {
    // Found by hostile review: bound to all addresses (for a scraper on the network), nothing was
    // checked, and a DNS-rebinding page in the user's browser read the counters over 127.0.0.1.
    const metrics = new CliMetrics()
    for (const host of ['0.0.0.0', '[::]']) {
      const server = await startMetrics(`${host}:0`, metrics.registry, captureLogger())
      assert.ok(server, host)
      try {
        const port = server.address.split(':').pop()!
        const rebound = await get(`127.0.0.1:${port}`, '/metrics', {
          headers: { host: `rebind.attacker.example:${port}` },
        })
        assert.equal(rebound.status, 403, host)
        assert.equal((await get(`127.0.0.1:${port}`, '/metrics')).status, 200, host)
        // A scraper on the machine naming it (Debian maps its name to 127.0.1.1) or one of its
        // addresses: no rebinding page can send such a Host and read the answer.
        for (const own of [hostname(), '10.1.2.3', '[fe80::1]']) {
          const named = await get(`127.0.0.1:${port}`, '/metrics', {
            headers: { host: `${own}:${port}` },
          })
          assert.equal(named.status, 200, `${host} ${own}`)
        }
      } finally {
        await server.close()
      }
    }
  })
})

describe('startMetrics on a network address, asked from this machine', () => {
  // A non-loopback address of this machine, if it has one (a test box may have only loopback).
  const own = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && !a.internal && a.family === 'IPv4')?.address

  it(
    'refuses a rebinding Host on a request from this machine to its own address',
    {
      skip: own === undefined && 'this machine has no non-loopback IPv4 address',
    },
    async () => {
      // Found by hostile review: only requests over loopback were checked, so a DNS-rebinding page
      // in the user's browser whose name resolved to the machine's own network address, not
      // 127.0.0.1, read the counters of a listener bound to every address or to that address.
      const metrics = new CliMetrics()
      metrics.request('private-upstream', 'tools/call')
      for (const host of ['0.0.0.0', own!]) {
        const server = await startMetrics(`${host}:0`, metrics.registry, captureLogger())
        assert.ok(server, host)
        try {
          const port = server.address.split(':').pop()!
          const rebound = await get(`${own!}:${port}`, '/metrics', {
            headers: { host: `rebind.attacker.example:${port}` },
          })
          assert.equal(rebound.status, 403, host)
          assert.ok(!rebound.body.includes('private-upstream'), host)
          // A scraper on the machine naming one of its addresses, or its own name, still reads.
          for (const name of [own!, hostname()]) {
            const named = await get(`${own!}:${port}`, '/metrics', {
              headers: { host: `${name}:${port}` },
            })
            assert.equal(named.status, 200, `${host} ${name}`)
            assert.ok(named.body.includes('private-upstream'), `${host} ${name}`)
          }
        } finally {
          await server.close()
        }
      }
    },
  )
})

describe('startMetrics connection limits', () => {
  // Found by hostile review: a connection that sent nothing, or half a request, was kept for
  // ever, and any number were taken, each holding a file descriptor of `burrow up`; a program
  // of the machine (or of the network, for a listener bound there) that opened enough of them
  // left the process none, and its tunnel and upstream connections failed with EMFILE.
  it('closes a connection that stays silent before its request is whole', async () => {
    const limits = { maxConnections: 1000, idleMs: 300 }
    const server = await startMetrics(
      '127.0.0.1:0',
      new CliMetrics().registry,
      captureLogger(),
      limits,
    )
    assert.ok(server)
    try {
      const port = Number(server.address.split(':').pop())
      const silent = await idleSocket(port)
      const half = await idleSocket(port, `GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`)
      assert.equal(await silent.closedWithin(3_000), true, 'a connection that sends nothing')
      assert.equal(await half.closedWithin(3_000), true, 'a connection that sends half a request')
      assert.equal((await get(server.address, '/healthz')).status, 200)
    } finally {
      await server.close()
    }
  })

  it('takes at most maxConnections at once', async () => {
    const limits = { maxConnections: 3, idleMs: 60_000 }
    const server = await startMetrics(
      '127.0.0.1:0',
      new CliMetrics().registry,
      captureLogger(),
      limits,
    )
    assert.ok(server)
    try {
      const port = Number(server.address.split(':').pop())
      const held = [await idleSocket(port), await idleSocket(port), await idleSocket(port)]
      const extra = await idleSocket(port)
      assert.equal(await extra.closedWithin(2_000), true, 'the connection past the bound')
      for (const h of held) assert.equal(await h.closedWithin(0), false)
      for (const h of held) h.socket.destroy()
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.equal((await get(server.address, '/healthz')).status, 200)
    } finally {
      await server.close()
    }
  })
})

describe('startMetrics when it cannot bind', () => {
  it('warns naming the address and the cause when the port is taken, and returns null', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const addr = `127.0.0.1:${(taken.address() as AddressInfo).port}`
    try {
      const log = captureLogger()
      const started = Date.now()
      assert.equal(await startMetrics(addr, new CliMetrics().registry, log), null)
      assert.ok(Date.now() - started < 2000, 'fails fast')
      const warning = log.lines.find((l) => l.startsWith('WARN'))
      assert.ok(warning, `no warning in ${log.lines.join('\n')}`)
      assert.ok(warning.includes(addr), warning)
      assert.match(warning, /already in use \(EADDRINUSE\)/)
      assert.match(warning, /forwarding continues/)
    } finally {
      await new Promise((resolve) => taken.close(resolve))
    }
  })

  it('warns and returns null for an address it cannot use', async () => {
    for (const addr of ['no-such-host.invalid:9464', '192.0.2.1:9464', 'nonsense']) {
      const log = captureLogger()
      assert.equal(await startMetrics(addr, new CliMetrics().registry, log), null, addr)
      assert.ok(
        log.lines.some((l) => l.startsWith('WARN') && l.includes(addr)),
        `${addr}: ${log.lines.join('\n')}`,
      )
    }
  })
})
