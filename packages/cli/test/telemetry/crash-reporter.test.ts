/**
 * Crash reports from a real crashing process (`crashing-program.ts`) to a real local HTTP server
 * standing in for burrowd: an uncaught exception or rejection sends one scrubbed report and the
 * process still dies non-zero; with telemetry off nothing is sent; a silent service delays the
 * exit by the deadline only. Also the report body itself: fields, scrubbing and size limits.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { after, before, beforeEach, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { crashReportBody } from '../../src/telemetry/crash-reporter.js'

const PROGRAM = fileURLToPath(new URL('./crashing-program.ts', import.meta.url))
const HOME = '/home/crash-test-user'

interface Received {
  readonly path: string
  readonly contentType: string
  readonly body: Record<string, unknown>
}

/** Run the crashing program; resolves with its exit status and output. */
function crash(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string; ms: number }> {
  const started = Date.now()
  const child = spawn(process.execPath, ['--import', 'tsx', PROGRAM], {
    env: { ...process.env, CRASH_HOME: HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  let stdout = ''
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stderr, stdout, ms: Date.now() - started })
    }),
  )
}

describe('crash reporter in a crashing process', () => {
  let server: Server
  let broker: string
  let received: Received[]
  let silent = false
  const sockets = new Set<Socket>()

  before(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.setEncoding('utf8').on('data', (c: string) => (body += c))
      req.on('end', () => {
        received.push({
          path: req.url ?? '',
          contentType: req.headers['content-type'] ?? '',
          body: JSON.parse(body) as Record<string, unknown>,
        })
        if (silent) return
        res.writeHead(202, { 'content-type': 'application/json' })
        res.end('{"id":"crash_0123456789abcdef0123"}')
      })
    })
    server.on('connection', (s) => {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    broker = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  beforeEach(() => {
    received = []
    silent = false
  })
  after(async () => {
    for (const s of sockets) s.destroy()
    await new Promise((resolve) => server.close(resolve))
  })

  it('sends one scrubbed report for an uncaught exception, then dies with the stack and status 1', async () => {
    const run = await crash({ CRASH_SERVICE: broker, CRASH_TELEMETRY: '1' })
    assert.equal(run.code, 1, run.stderr)
    assert.match(run.stderr, /Error: boom for mtk_abcDEF123_-xyz/, 'Node prints the original error')
    assert.match(
      run.stderr,
      /crash report sent to http:\/\/127\.0\.0\.1:\d+\/api\/crash-reports \(crash_0123456789abcdef0123\)/,
    )
    assert.equal(received.length, 1)
    const [report] = received
    assert.equal(report!.path, '/api/crash-reports')
    assert.equal(report!.contentType, 'application/json')
    const body = report!.body
    assert.deepEqual(Object.keys(body).sort(), [
      'arch',
      'client_version',
      'command',
      'kind',
      'message',
      'node',
      'os',
      'stack',
    ])
    assert.equal(body.client_version, '0.1.0')
    assert.equal(body.kind, 'uncaught')
    assert.equal(body.command, 'up')
    assert.equal(body.os, process.platform)
    assert.equal(body.arch, process.arch)
    assert.equal(body.node, process.version)
    assert.equal(body.message, 'Error: boom for mtk_[redacted] in ~/projects/app')
    assert.match(
      String(body.stack),
      /^Error: boom for mtk_\[redacted\] in ~\/projects\/app\n\s+at /,
    )
    const raw = JSON.stringify(body)
    assert.ok(!raw.includes('mtk_abc'), 'the key never leaves')
    assert.ok(!raw.includes(HOME), 'the home directory never leaves')
  })

  it('sends a report for an unhandled rejection and still exits non-zero', async () => {
    const run = await crash({
      CRASH_SERVICE: broker,
      CRASH_TELEMETRY: '1',
      CRASH_MODE: 'rejection',
    })
    assert.notEqual(run.code, 0)
    assert.match(run.stderr, /boom for mtk_abcDEF123_-xyz/)
    assert.equal(received.length, 1)
    assert.equal(received[0]!.body.kind, 'uncaught')
  })

  it('report("fatal") sends a fatal report for the top-level catch', async () => {
    const run = await crash({ CRASH_SERVICE: broker, CRASH_TELEMETRY: '1', CRASH_MODE: 'fatal' })
    assert.equal(run.code, 70)
    assert.equal(run.stdout, 'reported\n')
    assert.equal(received.length, 1)
    assert.equal(received[0]!.body.kind, 'fatal')
  })

  it('with telemetry off sends nothing at all, and the process dies as usual', async () => {
    for (const mode of ['exception', 'rejection', 'fatal']) {
      const run = await crash({ CRASH_SERVICE: broker, CRASH_TELEMETRY: '0', CRASH_MODE: mode })
      assert.notEqual(run.code, 0, mode)
      assert.ok(!run.stderr.includes('crash report sent'), run.stderr)
    }
    assert.deepEqual(received, [])
  })

  it('a silent service delays the exit by the deadline only', async () => {
    silent = true
    const run = await crash({
      CRASH_SERVICE: broker,
      CRASH_TELEMETRY: '1',
      CRASH_TIMEOUT_MS: '300',
    })
    assert.equal(run.code, 1)
    assert.equal(received.length, 1)
    assert.match(run.stderr, /crash report not sent: no answer within 300 ms/)
    assert.ok(run.ms < 10_000, `took ${run.ms} ms`)
  })

  it('a service that is down does not change how the process dies', async () => {
    const run = await crash({ CRASH_SERVICE: 'ws://127.0.0.1:9', CRASH_TELEMETRY: '1' })
    assert.equal(run.code, 1)
    assert.match(run.stderr, /Error: boom/)
    assert.match(run.stderr, /crash report not sent/)
  })
})

describe('crashReportBody', () => {
  it('keeps only a string or Error message, never other thrown values', () => {
    const body = crashReportBody('uncaught', { password: 'hunter2' }, '0.1.0', 'up', null)
    assert.equal(body.message, 'a non-Error value was thrown (object)')
    assert.equal(body.stack, '')
    assert.ok(!JSON.stringify(body).includes('hunter2'))
    assert.equal(crashReportBody('fatal', 'plain text', '0.1.0', null, null).message, 'plain text')
  })

  it('leaves out an odd command and bounds the message, the stack and the whole body', () => {
    const err = new Error('m'.repeat(10_000))
    err.stack = '\u0001'.repeat(1000) + 'é'.repeat(50_000)
    const body = crashReportBody('fatal', err, '0.1.0', 'up --api-key x\n', null)
    assert.ok(!('command' in body))
    assert.ok(body.message.length <= 4096)
    assert.ok(body.stack.length <= 16_384)
    assert.ok(Buffer.byteLength(JSON.stringify(body)) <= 60 * 1024)
  })
})
