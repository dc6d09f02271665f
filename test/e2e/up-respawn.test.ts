// `burrow up` runs in a second process started with its heap flags: the tunnel works there, one
// Ctrl-C to the terminal's process group is still one signal (a drain), a signal sent to either
// process alone drains, a second one stops at once, and killing the first process ends the
// second. Linux only (it reads /proc).
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { startChild, type Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { BURROW, ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Pids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // Fields after the command name, which is in parentheses and may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[1]) === pid) found.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return found
}

const argvOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')

/** Whether `pid` runs (a zombie, ended but not yet reaped, does not). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && alive(pid); i++) await sleep(50)
  return !alive(pid)
}

/** The second `burrow up` process under `first`. */
function secondProcess(first: Child): number {
  const node = childrenOf(first.proc.pid!).filter((pid) => argvOf(pid).includes(BURROW))
  assert.equal(node.length, 1, 'one second process runs the same command')
  return node[0]!
}

const slowCall = (url: string, id: number) =>
  publicFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'slow', params: { ms: 1500 } }),
  })

describe(
  'burrow up in a second process with its heap flags',
  { skip: process.platform !== 'linux' },
  () => {
    let service: Service
    let bulk: Child
    let bulkUrl: string

    before(async () => {
      bulk = startChild(process.execPath, [join(ROOT, 'test/fixtures/bulk-server.mjs')])
      bulkUrl = `http://127.0.0.1:${(await bulk.waitFor(/listening on (\d+)/))[1]}/mcp`
      service = await startService({}, { plan: 'pro' })
    })

    after(async () => {
      await bulk?.stop()
      await service?.close()
    })

    it('runs the tunnel in a second process started with --initial-old-space-size=64', async () => {
      const tunnel = await service.tunnel('flags')
      const cli = await startClient(service, tunnel.key, ['--upstream', bulkUrl])
      try {
        const second = secondProcess(cli)
        assert.ok(argvOf(second).includes('--initial-old-space-size=64'), argvOf(second).join(' '))
        assert.ok(!argvOf(cli.proc.pid!).includes('--initial-old-space-size=64'))
        const res = await slowCall(tunnel.url, 1)
        assert.equal(res.status, 200)
      } finally {
        await cli.stop()
      }
    })

    it("one Ctrl-C to the terminal's process group drains once and exits 0", async () => {
      const tunnel = await service.tunnel('ctrl-c')
      const cli = startChild(
        process.execPath,
        [BURROW, '--broker', service.broker, 'up', '--upstream', bulkUrl],
        {
          env: { ...process.env, BURROW_API_KEY: tunnel.key },
          detached: true,
        },
      )
      try {
        await cli.waitFor(/Tunnel online/)
        const call = slowCall(tunnel.url, 2)
        await sleep(300)
        process.kill(-cli.proc.pid!, 'SIGINT')
        const res = await call
        assert.equal(res.status, 200, 'the in-flight call was finished, not cut')
        assert.equal(await cli.exited, 0)
        assert.equal(cli.stdout.split('goodbye').length - 1, 1, cli.stdout)
        assert.doesNotMatch(cli.stderr, /again: stopping now/)
      } finally {
        try {
          process.kill(-cli.proc.pid!, 'SIGKILL')
        } catch {
          // Already gone.
        }
      }
    })

    it('drains on a SIGTERM sent to the second process alone', async () => {
      const tunnel = await service.tunnel('term-second')
      const cli = await startClient(service, tunnel.key, ['--upstream', bulkUrl])
      const second = secondProcess(cli)
      const call = slowCall(tunnel.url, 5)
      await sleep(300)
      process.kill(second, 'SIGTERM')
      assert.equal((await call).status, 200)
      assert.equal(await cli.exited, 0)
      assert.equal(cli.stdout.split('goodbye').length - 1, 1, cli.stdout)
    })

    it('passes on a SIGTERM sent to the first process alone; a second stops at once', async () => {
      const tunnel = await service.tunnel('term')
      const cli = await startClient(service, tunnel.key, ['--upstream', bulkUrl])
      const second = secondProcess(cli)
      const call = slowCall(tunnel.url, 3)
      await sleep(300)
      cli.proc.kill('SIGTERM')
      await cli.waitFor(/goodbye/)
      cli.proc.kill('SIGTERM')
      assert.equal(await cli.exited, 'SIGKILL', 'it ends as the second process did')
      await call.catch(() => undefined)
      assert.match(cli.stderr, /SIGTERM again: stopping now/)
      assert.ok(await gone(second))
    })

    it('ends the second process when the first is killed', async () => {
      const tunnel = await service.tunnel('kill')
      const cli = await startClient(service, tunnel.key, ['--upstream', bulkUrl])
      const second = secondProcess(cli)
      cli.proc.kill('SIGKILL')
      await cli.exited
      assert.ok(await gone(second), 'the second process is gone')
      const offline = await publicFetch(tunnel.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":4,"method":"ping"}',
      })
      assert.equal(offline.status, 503)
      assert.equal(((await offline.json()) as { id: number }).id, 4)
    })

    for (const [name, how, end] of [
      ['hup', 'a SIGHUP (the terminal closed)', (cli: Child) => cli.proc.kill('SIGHUP')],
      ['first-killed', 'the first process killed', (cli: Child) => cli.proc.kill('SIGKILL')],
    ] as const) {
      it(`stops the stdio server it started on ${how}`, async () => {
        const tunnel = await service.tunnel(name)
        const dir = mkdtempSync(join(tmpdir(), 'burrow-hup-'))
        const pidFile = join(dir, 'pid')
        const started: number[] = []
        try {
          const cli = await startClient(
            service,
            tunnel.key,
            ['--stdio', `node ${join(ROOT, 'test/fixtures/stdin-deaf-server.mjs')}`],
            { PID_FILE: pidFile },
          )
          started.push(cli.proc.pid!)
          const second = secondProcess(cli)
          started.push(second)
          for (let i = 0; i < 200 && !existsSync(pidFile); i++) await sleep(50)
          const server = Number(readFileSync(pidFile, 'utf8'))
          started.push(server)
          assert.ok(alive(server))
          assert.ok(end(cli), `the first process still ran:\n${cli.stdout}\n${cli.stderr}`)
          await cli.exited
          assert.ok(await gone(second), 'the second process is gone')
          assert.ok(await gone(server), 'the stdio server is gone')
        } finally {
          // A failed assertion must not leave them running: the file would wait for them.
          for (const pid of started.filter(alive)) process.kill(pid, 'SIGKILL')
          rmSync(dir, { recursive: true, force: true })
        }
      })
    }

    it('runs in one process with BURROW_NO_RESPAWN=1', async () => {
      const tunnel = await service.tunnel('single')
      const cli = await startClient(service, tunnel.key, ['--upstream', bulkUrl], {
        BURROW_NO_RESPAWN: '1',
      })
      try {
        assert.deepEqual(
          childrenOf(cli.proc.pid!).filter((pid) => argvOf(pid).includes(BURROW)),
          [],
        )
      } finally {
        await cli.stop()
      }
    })
  },
)
