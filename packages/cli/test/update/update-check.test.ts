/**
 * The background update check against a real local HTTP server standing in for burrowd's
 * `GET /api/client/latest`, with an injected clock and a temporary state directory: at most one
 * request a day, one line when a newer release is announced, nothing for an older or equal one,
 * and nothing (and no delay) when the service is down or silent.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { closeSync, constants, openSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import {
  runUpdateCheck,
  startUpdateCheck,
  UPDATE_STATE_FILE,
  type UpdateCheckOptions,
} from '../../src/update/update-check.js'
import { captureLogger } from '../helpers/capture-logger.js'

const DAY = 24 * 60 * 60 * 1000

/** A stand-in service; `answer` decides each response, `hits` counts requests. */
class FakeService {
  hits = 0
  paths: string[] = []
  userAgents: string[] = []
  answer: (res: ServerResponse) => void = (res) => json(res, 200, { version: '0.1.0' })
  readonly server: Server
  readonly sockets = new Set<Socket>()
  constructor() {
    this.server = createServer((req, res) => {
      this.hits++
      this.paths.push(req.url ?? '')
      this.userAgents.push(req.headers['user-agent'] ?? '')
      this.answer(res)
    })
    this.server.on('connection', (s) => {
      this.sockets.add(s)
      s.on('close', () => this.sockets.delete(s))
    })
  }
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    await new Promise((resolve) => this.server.close(resolve))
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

describe('update check', () => {
  let service: FakeService
  let broker: string
  let stateDir: string
  let printed: string[]
  let clock: number

  const options = (extra: Partial<UpdateCheckOptions> = {}): UpdateCheckOptions => ({
    serviceUrl: broker,
    currentVersion: '0.1.0',
    stateDir,
    print: (text) => printed.push(text),
    logger: captureLogger(),
    now: () => new Date(clock),
    ...extra,
  })

  beforeEach(async () => {
    service = new FakeService()
    broker = await service.listen()
    stateDir = join(await mkdtemp(join(tmpdir(), 'burrow-update-')), 'nested', 'burrow')
    printed = []
    clock = Date.parse('2026-05-01T10:00:00.000Z')
  })
  afterEach(async () => {
    await service.close()
    await rm(join(stateDir, '..', '..'), { recursive: true, force: true })
  })

  it('prints one line when the service announces a newer release', async () => {
    service.answer = (res) =>
      json(res, 200, { version: '0.2.0', download_url: 'https://example.com/dl' })
    assert.equal(await runUpdateCheck(options()), 'newer')
    assert.deepEqual(printed, [
      'A newer burrow is available: 0.2.0 (you have 0.1.0). Get it at https://example.com/dl; hide this notice with --no-update-check.\n',
    ])
    assert.deepEqual(service.paths, ['/api/client/latest'])
    assert.deepEqual(service.userAgents, ['burrow/0.1.0'])
  })

  it('asks at most once a day: the same day nothing is asked or printed, the next day again', async () => {
    service.answer = (res) => json(res, 200, { version: '0.2.0' })
    assert.equal(await runUpdateCheck(options()), 'newer')
    assert.equal(printed.length, 1)
    assert.match(printed[0]!, /0\.2\.0 \(you have 0\.1\.0\)\. Update it the way you installed it/)
    const state = JSON.parse(await readFile(join(stateDir, UPDATE_STATE_FILE), 'utf8')) as unknown
    assert.deepEqual(state, { checked_at: '2026-05-01T10:00:00.000Z', latest: '0.2.0' })

    clock += DAY - 1000
    assert.equal(await runUpdateCheck(options()), 'recent')
    assert.equal(service.hits, 1, 'no second request within a day')
    assert.equal(printed.length, 1)

    clock += 2000
    assert.equal(await runUpdateCheck(options()), 'newer')
    assert.equal(service.hits, 2)
    assert.equal(printed.length, 2)
  })

  it('prints nothing when the announced release is older or equal', async () => {
    service.answer = (res) => json(res, 200, { version: '0.1.0' })
    assert.equal(await runUpdateCheck(options()), 'current')
    clock += DAY
    service.answer = (res) => json(res, 200, { version: '0.0.9' })
    assert.equal(await runUpdateCheck(options()), 'current')
    assert.deepEqual(printed, [])
    assert.equal(service.hits, 2)
  })

  it('prints nothing for an answer it cannot use, and never an unsafe download URL', async () => {
    service.answer = (res) => json(res, 200, { version: '9.0.0\u001b[2J' })
    assert.equal(await runUpdateCheck(options()), 'failed')
    clock += DAY
    service.answer = (res) => json(res, 404, { error: 'not here' })
    assert.equal(await runUpdateCheck(options()), 'failed')
    clock += DAY
    service.answer = (res) =>
      json(res, 200, { version: '9.0.0', download_url: 'javascript:alert(1)' })
    assert.equal(await runUpdateCheck(options()), 'newer')
    assert.equal(printed.length, 1)
    assert.ok(!printed[0]!.includes('javascript'), printed[0])
    assert.ok(!printed.join('').includes('\u001b'))
  })

  it('prints nothing when the service is down, and asks again next time', async () => {
    await service.close()
    const log = captureLogger()
    assert.equal(await runUpdateCheck(options({ logger: log })), 'failed')
    assert.deepEqual(printed, [])
    assert.ok(
      log.lines.every((l) => l.startsWith('DEBUG')),
      'problems are logged at debug only',
    )
    assert.ok(log.lines.some((l) => /update check failed/.test(l)))
    // A failed attempt is not remembered: the next run asks again.
    service = new FakeService()
    service.answer = (res) => json(res, 200, { version: '0.3.0' })
    broker = await service.listen()
    assert.equal(await runUpdateCheck(options()), 'newer')
  })

  it('gives up on a silent service after the deadline; starting it returns at once', async () => {
    service.answer = () => {} // never answers
    const started = performance.now()
    startUpdateCheck(options({ timeoutMs: 200 }))
    assert.ok(performance.now() - started < 50, 'startUpdateCheck does not wait')
    const before = performance.now()
    assert.equal(await runUpdateCheck(options({ timeoutMs: 200 })), 'failed')
    assert.ok(performance.now() - before < 2000, 'the deadline holds')
    assert.deepEqual(printed, [])
  })

  it('still prints when the state cannot be saved', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'burrow-update-')), 'a-file')
    await writeFile(file, 'not a directory')
    service.answer = (res) => json(res, 200, { version: '1.0.0' })
    assert.equal(await runUpdateCheck(options({ stateDir: join(file, 'burrow') })), 'newer')
    assert.equal(printed.length, 1)
    await rm(join(file, '..'), { recursive: true, force: true })
  })

  it('ignores a corrupt state file', async () => {
    await runUpdateCheck(options())
    await writeFile(join(stateDir, UPDATE_STATE_FILE), '{oops')
    assert.equal(await runUpdateCheck(options()), 'current')
    assert.equal(service.hits, 2)
  })

  it(
    'does not wait on a state file that is not a regular file (a FIFO nothing writes)',
    {
      skip: process.platform === 'win32',
    },
    async () => {
      await mkdir(stateDir, { recursive: true })
      const fifo = join(stateDir, UPDATE_STATE_FILE)
      execFileSync('mkfifo', [fifo])
      let timer: NodeJS.Timeout | undefined
      const deadline = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('still waiting'), 2000)
      })
      try {
        assert.equal(await Promise.race([runUpdateCheck(options()), deadline]), 'current')
        assert.equal(service.hits, 1)
      } finally {
        clearTimeout(timer)
        // Free a reader still blocked on the FIFO, if any, so the test process can end.
        try {
          closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
        } catch {
          // No reader: nothing to free.
        }
      }
    },
  )
})
