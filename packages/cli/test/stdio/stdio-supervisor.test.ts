/**
 * StdioSupervisor against real child processes (test/fixtures): newline-delimited JSON, stderr
 * re-logging, the inherited environment, restart with backoff, the healthy reset, the one-time
 * crash hint (once with the default timings) and the close sequence.
 */
import assert from 'node:assert/strict'
import type { SpawnOptions } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, it } from 'node:test'
import crossSpawn from 'cross-spawn'
import {
  StdioBackloggedError,
  StdioSupervisor,
  StdioUnavailableError,
  type StdioExit,
  type StdioSupervisorOptions,
} from '../../src/stdio/stdio-supervisor.js'
import { CommandNotFoundError } from '../../src/stdio/command-not-found.js'
import { captureLogger } from '../helpers/capture-logger.js'
import { fixturePath } from '../helpers/fixtures.js'

const node = process.execPath
const fast = { initialBackoffMs: 40, maxBackoffMs: 160, stableAfterMs: 1_000, crashHintAfter: 3 }
/**
 * The supervisor's clock for children that exit at once: it does not move, so a busy machine that
 * takes over a second to start and end one cannot make it look healthy (past stableAfterMs), which
 * resets the backoff (seen: 40, 80, 40, 80, 40 where 40, 80, 160, 160, 160 were due).
 */
const stopped = () => 0
const running: StdioSupervisor[] = []

function supervise(options: StdioSupervisorOptions): StdioSupervisor {
  const supervisor = new StdioSupervisor(options)
  running.push(supervisor)
  return supervisor
}

/** Collect `count` exit events. */
async function exits(supervisor: StdioSupervisor, count: number): Promise<StdioExit[]> {
  const seen: StdioExit[] = []
  return new Promise((resolve) => {
    supervisor.on('exit', (exit) => {
      seen.push(exit)
      if (seen.length === count) resolve(seen)
    })
  })
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()))
})

describe('StdioSupervisor messages', { timeout: 30_000 }, () => {
  it('exchanges JSON lines, skips non-JSON output and passes the environment', async () => {
    const logger = captureLogger()
    process.env.BURROW_TEST_INHERITED = 'from burrow'
    const supervisor = supervise({
      command: node,
      args: [fixturePath('slow-stdio-server.mjs')],
      env: { SLOW_SERVER_NOISE: '1', EXTRA_VAR: 'added' },
      label: 'slow',
      logger,
    })
    const messages: unknown[] = []
    supervisor.on('message', (m) => messages.push(m))
    supervisor.start()
    // The environment is read at spawn time.
    delete process.env.BURROW_TEST_INHERITED
    const call = (id: number, name: string): void =>
      supervisor.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'env', arguments: { name } },
      })
    supervisor.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })
    call(2, 'BURROW_TEST_INHERITED')
    call(3, 'EXTRA_VAR')
    await logger.waitFor(/\[slow\] initialize #1/)
    while (messages.length < 3) await once(supervisor, 'message')
    const texts = messages.slice(1).map((m) => JSON.stringify(m))
    assert.match(texts[0]!, /from burrow/)
    assert.match(texts[1]!, /added/)
    await logger.waitFor(/WARN {2}\[slow\] skipped a stdout line that is not JSON: this line/)
  })

  it("withholds burrow's secrets from the server's environment unless its own env sets them", async () => {
    // Found by a hostile review: a server showing its environment (server-everything's
    // `get-env`) handed the tunnel key to any agent of the public URL, who took the tunnel over.
    const logger = captureLogger()
    process.env.BURROW_API_KEY = 'mtk_withheld'
    process.env.BURROW_INSPECT_TOKEN = 'withheld-too'
    process.env.BURROW_TEST_INHERITED = 'still inherited'
    const supervisor = supervise({
      command: node,
      args: [fixturePath('slow-stdio-server.mjs')],
      env: { BURROW_INSPECT_TOKEN: 'set by its config' },
      label: 'slow',
      logger,
    })
    const messages: unknown[] = []
    supervisor.on('message', (m) => messages.push(m))
    supervisor.start()
    delete process.env.BURROW_API_KEY
    delete process.env.BURROW_INSPECT_TOKEN
    delete process.env.BURROW_TEST_INHERITED
    const names = ['BURROW_API_KEY', 'BURROW_INSPECT_TOKEN', 'BURROW_TEST_INHERITED']
    for (const [i, name] of names.entries()) {
      const params = { name: 'env', arguments: { name } }
      supervisor.send({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params })
    }
    while (messages.length < names.length) await once(supervisor, 'message')
    const texts = messages.map((m) => (m as { result: { content: { text: string }[] } }).result)
    assert.deepEqual(
      texts.map((r) => JSON.parse(r.content[0]!.text) as unknown),
      [null, 'set by its config', 'still inherited'],
    )
  })

  it('refuses to queue more than the bound for a child that does not read its stdin', async () => {
    // A child that never reads: the pipe fills, then Node queues what is written.
    const supervisor = supervise({
      command: node,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      maxQueuedBytes: 256 * 1024,
    })
    supervisor.start()
    await once(supervisor, 'spawn')
    const message = { jsonrpc: '2.0', method: 'notifications/x', params: { pad: 'p'.repeat(4096) } }
    let sent = 0
    let refused: unknown
    for (let i = 0; i < 1000 && refused === undefined; i++) {
      try {
        supervisor.send(message)
        sent++
      } catch (err) {
        refused = err
      }
    }
    assert.ok(refused instanceof StdioBackloggedError, String(refused))
    assert.match(refused.message, /has not read the last \d+ KiB sent to it \(at most 256 KiB/)
    // The bound plus what the pipe itself holds, not the thousand messages.
    assert.ok(sent < 200, `${sent} messages were queued`)
  })

  it('drops a stdout line over the bound, answers its request with an error, keeps reading', async () => {
    const logger = captureLogger()
    const supervisor = supervise({
      command: node,
      args: [fixturePath('slow-stdio-server.mjs')],
      env: { LONG_VALUE: 'x'.repeat(500) },
      maxLineBytes: 200,
      logger,
    })
    const messages: unknown[] = []
    supervisor.on('message', (m) => messages.push(m))
    supervisor.start()
    const params = { name: 'env', arguments: { name: 'LONG_VALUE' } }
    supervisor.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params })
    supervisor.send({ jsonrpc: '2.0', id: 2, method: 'ping' })
    while (messages.length < 2) await once(supervisor, 'message')
    // The dropped answer's request gets an error in its place.
    const [dropped, ping] = messages as { id: unknown; error?: { message: string } }[]
    assert.equal(dropped!.id, 1)
    assert.match(dropped!.error!.message, /more than the 200 bytes burrow reads from one line/)
    assert.deepEqual(ping, { jsonrpc: '2.0', id: 2, result: {} })
    await logger.waitFor(/dropped a stdout line of \d+ bytes \(limit 200\)/)
  })

  it('answers a request of its child nested too deep to forward with an error for its id', async () => {
    const logger = captureLogger()
    // The child asks once, then says on stderr what it was answered.
    const deep = `${'['.repeat(1_001)}${']'.repeat(1_001)}`
    const request = `{"jsonrpc":"2.0","id":"deep","method":"sampling/createMessage","params":{"x":${deep}}}`
    const script =
      `process.stdout.write(${JSON.stringify(request + '\n')});` +
      `process.stdin.once('data', (d) => console.error('answered: ' + d.toString().trim()))`
    const supervisor = supervise({ command: node, args: ['-e', script], logger })
    supervisor.start()
    const answered = await logger.waitFor(/answered: /)
    const answer = JSON.parse(/answered: (.*)/.exec(answered)![1]!) as {
      id: unknown
      error: { code: number; message: string }
    }
    assert.equal(answer.id, 'deep')
    assert.equal(answer.error.code, -32600)
    assert.match(answer.error.message, /deeper than 1000 levels/)
    await logger.waitFor(/skipped a stdout line nested too deep to forward/)
  })
})

describe('StdioSupervisor restarts', { timeout: 30_000 }, () => {
  it('restarts with doubling backoff up to the ceiling and new generations', async () => {
    const supervisor = supervise({
      command: node,
      args: [fixturePath('exit-after.mjs'), '0', '1'],
      timing: fast,
      now: stopped,
    })
    const restarts: number[] = []
    supervisor.on('restart', (generation) => restarts.push(generation))
    const seen = exits(supervisor, 5)
    supervisor.start()
    const list = await seen
    assert.deepEqual(
      list.map((e) => e.restartInMs),
      [40, 80, 160, 160, 160],
    )
    assert.deepEqual(
      list.map((e) => [e.generation, e.code]),
      [
        [1, 1],
        [2, 1],
        [3, 1],
        [4, 1],
        [5, 1],
      ],
    )
    assert.deepEqual(restarts, [2, 3, 4, 5])
  })

  it('resets the backoff and the crash count after a healthy run', async () => {
    const logger = captureLogger()
    // Generations 1-2 crash at once, 3 outlives stableAfterMs, 4-5 crash at once again. The
    // supervisor's clock moves only when a child that runs long starts, so a busy machine that
    // starts the quick ones slowly cannot make them look healthy.
    const lifetimes = [0, 0, 1_300, 0, 0]
    let clock = 0
    let spawned = 0
    const spawn = (_cmd: string, _args: readonly string[], options: SpawnOptions) => {
      const lifetime = lifetimes[spawned++] ?? 0
      const child = crossSpawn(node, [fixturePath('exit-after.mjs'), '0', '2'], options)
      child.once('spawn', () => (clock += lifetime))
      return child
    }
    const supervisor = supervise({
      command: 'exit-after',
      spawn,
      timing: fast,
      logger,
      now: () => clock,
    })
    const seen = exits(supervisor, 5)
    supervisor.start()
    const list = await seen
    assert.deepEqual(
      list.map((e) => e.runtimeMs),
      [0, 0, 1_300, 0, 0],
    )
    assert.deepEqual(
      list.map((e) => e.restartInMs),
      [40, 80, 40, 80, 160],
    )
    assert.equal(
      logger.lines.filter((l) => l.includes('keeps crashing')).length,
      0,
      'two quick crashes, a healthy run and two more never make three in a row',
    )
  })

  it('prints the crash hint once, with the real default timings', async () => {
    const logger = captureLogger()
    const script = fixturePath('crash-on-start.mjs')
    const supervisor = supervise({
      command: node,
      args: [script],
      displayCommand: `node ${script}`,
      label: 'crashy',
      logger,
    })
    const seen = exits(supervisor, 4)
    const started = Date.now()
    supervisor.start()
    const hint = await logger.waitFor(/keeps crashing/, 8_000)
    assert.equal(
      hint,
      `WARN  stdio server keeps crashing: "node ${script}" exited 3 times in a row; ` +
        'last stderr line: "boom: missing TOKEN"',
    )
    // Three crashes are separated by the 500 ms and 1 s backoffs.
    assert.ok(Date.now() - started >= 1_500, `hint after ${Date.now() - started} ms`)
    const list = await seen
    assert.deepEqual(
      list.map((e) => [e.code, e.restartInMs]),
      [
        [3, 500],
        [3, 1000],
        [3, 2000],
        [3, 4000],
      ],
    )
    assert.equal(logger.lines.filter((l) => l.includes('keeps crashing')).length, 1)
    assert.ok(logger.lines.includes('INFO  [crashy] boom: missing TOKEN'))
    assert.equal(supervisor.lastStderrLine, 'boom: missing TOKEN')
  })

  it('counts spawn failures after a first start as crashes and names the error in the hint', async () => {
    // A command that ran once and then disappeared (an upgrade in progress) is retried.
    const dir = mkdtempSync(join(tmpdir(), 'burrow-vanishing-'))
    const script = join(dir, 'server.sh')
    writeFileSync(script, '#!/bin/sh\nexit 1\n', { mode: 0o755 })
    try {
      const logger = captureLogger()
      const supervisor = supervise({ command: script, timing: fast, logger, now: stopped })
      supervisor.once('exit', () => unlinkSync(script))
      const seen = exits(supervisor, 3)
      supervisor.start()
      const list = await seen
      assert.equal(list[0]!.code, 1)
      assert.ok(list.slice(1).every((e) => e.error !== undefined && e.runtimeMs === 0))
      assert.ok(list.every((e) => e.restartInMs !== null))
      const hint = await logger.waitFor(/keeps crashing/)
      assert.match(hint, /exited 3 times in a row; last error: .*ENOENT/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('gives up on a command that is not found, and says which', async () => {
    const supervisor = supervise({ command: 'burrow-test-no-such-command', timing: fast })
    const seen = exits(supervisor, 1)
    supervisor.start()
    await assert.rejects(supervisor.started(), (err: unknown) => {
      assert.ok(err instanceof CommandNotFoundError)
      assert.equal(
        err.message,
        'command not found: burrow-test-no-such-command; check the spelling, or that its directory is in PATH',
      )
      return true
    })
    const failure = await supervisor.failure()
    assert.equal(failure.program, 'burrow-test-no-such-command')
    const [exit] = await seen
    assert.equal(exit!.restartInMs, null)
    assert.equal(supervisor.generation, 1)
    assert.throws(() => supervisor.send({}), /cannot run: command not found/)
  })

  it('names the program a first child said it could not find, when it exits before saying so', async () => {
    // The shell exits with 127 at once; the line naming the program comes 100 ms later.
    const supervisor = supervise({
      command: 'sh',
      args: ['-c', '(sleep 0.1; echo "sh: 1: burrow-test-said-late: not found" >&2) & exit 127'],
      timing: fast,
      now: stopped,
      // Long enough for a busy machine: the wait ends when the grandchild closes stderr.
      stderrAfterExitMs: 10_000,
    })
    supervisor.start()
    await supervisor.started()
    const failure = await supervisor.failure()
    assert.equal(failure.program, 'burrow-test-said-late')
    assert.equal(supervisor.generation, 1)
  })

  it('gives up when the first child is a shell that cannot find the command (status 127)', async () => {
    const supervisor = supervise({
      command: 'sh',
      args: ['-c', 'burrow-test-no-such-command'],
      timing: fast,
      now: stopped,
    })
    supervisor.start()
    await supervisor.started()
    const failure = await supervisor.failure()
    assert.equal(failure.program, 'burrow-test-no-such-command')
    assert.match(
      failure.message,
      /exited with status 127: ".*burrow-test-no-such-command.*not found"/,
    )
    assert.equal(supervisor.generation, 1)
  })

  it('refuses send() while the child is down', async () => {
    const supervisor = supervise({
      command: node,
      args: [fixturePath('crash-on-start.mjs')],
      timing: { ...fast, initialBackoffMs: 5_000 },
    })
    assert.throws(() => supervisor.send({}), StdioUnavailableError)
    supervisor.start()
    await once(supervisor, 'exit')
    assert.equal(supervisor.running, false)
    assert.throws(
      () => supervisor.send({ jsonrpc: '2.0', method: 'ping' }),
      /is not running \(it exited; restarting in \d\.\d s\)/,
    )
  })
})

describe('StdioSupervisor close', { timeout: 30_000 }, () => {
  it('ends stdin and does not restart a child that exits on its own', async () => {
    const supervisor = supervise({ command: node, args: [fixturePath('slow-stdio-server.mjs')] })
    supervisor.start()
    await once(supervisor, 'spawn')
    const exited = once(supervisor, 'exit')
    const started = Date.now()
    await supervisor.close()
    const [exit] = (await exited) as [StdioExit]
    assert.equal(exit.restartInMs, null)
    assert.ok(Date.now() - started < 1_500, 'no SIGTERM needed')
    await new Promise((r) => setTimeout(r, 100))
    assert.equal(supervisor.generation, 1)
  })

  it('escalates to SIGTERM, then SIGKILL for a child that ignores both', async () => {
    const logger = captureLogger()
    const supervisor = supervise({
      command: node,
      args: [fixturePath('ignore-sigterm.mjs')],
      closeGraceMs: 200,
      label: 'stubborn',
      logger,
    })
    supervisor.start()
    await logger.waitFor(/\[stubborn\] ready/)
    const exited = once(supervisor, 'exit')
    await supervisor.close()
    const [exit] = (await exited) as [StdioExit]
    assert.equal(exit.signal, 'SIGKILL')
    assert.ok(logger.lines.some((l) => l.includes('ignoring SIGTERM')))
    assert.ok(logger.lines.some((l) => l.includes('ignored stdin closing and SIGTERM; killed it')))
  })

  it(
    'stops a server started through a wrapper, the processes it started included',
    {
      skip: process.platform === 'win32' ? 'no process groups' : false,
    },
    async () => {
      // Found by a hostile review: only the wrapper (`sh -c`, a launcher) was signalled; the server
      // it started kept running, holding the pipes, and `burrow up` never exited.
      const logger = captureLogger()
      // The wrapper exits on SIGTERM; the server under it ignores stdin closing and SIGTERM.
      const server = [
        "process.on('SIGTERM', () => console.error('server ignoring SIGTERM'))",
        "console.error('server pid ' + process.pid)",
        'setInterval(() => {}, 1000)',
      ].join(';')
      const wrapper = [
        "const { spawn } = require('node:child_process')",
        `spawn(process.execPath, ['-e', ${JSON.stringify(server)}], { stdio: 'inherit' })`,
        "process.on('SIGTERM', () => process.exit(0))",
      ].join(';')
      const supervisor = supervise({
        command: node,
        args: ['-e', wrapper],
        closeGraceMs: 300,
        label: 'wrapped',
        logger,
      })
      supervisor.start()
      const line = await logger.waitFor(/\[wrapped\] server pid \d+/)
      const pid = /server pid (\d+)/.exec(line)![1]
      // A zombie is not running: where nothing reaps orphans (a container's first process that
      // is no init), the stopped server stays one.
      const alive = (): boolean => {
        try {
          process.kill(Number(pid), 0)
        } catch {
          return false
        }
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
          return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z'
        } catch {
          return true
        }
      }
      assert.ok(alive())
      await supervisor.close()
      for (let i = 0; alive() && i < 100; i++) await new Promise((r) => setTimeout(r, 20))
      assert.equal(alive(), false, 'the server the wrapper started is stopped too')
    },
  )

  it(
    'stops what a server that crashed started, before its restart',
    {
      skip: process.platform === 'win32' ? 'no process groups' : false,
    },
    async () => {
      // Found by a hostile review: a crashed server's group was left running at each restart (a
      // wrapper's server, a tool's command), and no shutdown ever stopped it.
      const logger = captureLogger()
      // The wrapper starts a server, then crashes; the server runs on.
      const wrapper = [
        "const { spawn } = require('node:child_process')",
        "const server = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' })",
        "server.on('spawn', () => { console.error('server pid ' + server.pid); process.exit(1) })",
      ].join(';')
      const supervisor = supervise({
        command: node,
        args: ['-e', wrapper],
        closeGraceMs: 300,
        timing: fast,
        now: stopped,
        label: 'crashing',
        logger,
      })
      supervisor.start()
      const line = await logger.waitFor(/\[crashing\] server pid \d+/)
      const pid = Number(/server pid (\d+)/.exec(line)![1])
      const alive = (): boolean => {
        try {
          process.kill(pid, 0)
        } catch {
          return false
        }
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
          return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z'
        } catch {
          return true
        }
      }
      try {
        await once(supervisor, 'restart')
        await supervisor.close()
        assert.equal(alive(), false, 'the server the first wrapper started is stopped')
      } finally {
        if (alive()) process.kill(pid, 'SIGKILL')
      }
    },
  )

  it('stops and restarts a child that closed its stdout but kept running', async () => {
    const logger = captureLogger()
    // It can answer nothing more: before, every request to it waited for ever.
    const script = "require('fs').closeSync(1); setInterval(() => {}, 1000)"
    const supervisor = supervise({
      command: node,
      args: ['-e', script],
      closeGraceMs: 200,
      exitAfterStdoutEndMs: 100,
      timing: fast,
      label: 'mute',
      logger,
    })
    const exited = exits(supervisor, 1)
    supervisor.start()
    const [exit] = await exited
    assert.equal(exit!.generation, 1)
    assert.notEqual(exit!.restartInMs, null)
    assert.ok(logger.lines.some((l) => l.includes('[mute] stdio server closed its stdout')))
    await once(supervisor, 'restart')
    assert.equal(supervisor.generation, 2)
  })
})
