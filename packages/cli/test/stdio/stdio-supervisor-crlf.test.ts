/**
 * A real child that ends its lines with `\r\n`, as Windows servers do: the `\r` is no part of the
 * line, so it does not count against the bound on one line, on stdout or on stderr.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { StdioSupervisor } from '../../src/stdio/stdio-supervisor.js'
import { captureLogger, type CaptureLogger } from '../helpers/capture-logger.js'

const LIMIT = 1024
const STDERR_LIMIT = 64 * 1024
const running: StdioSupervisor[] = []

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()))
})

/** The answer to request 1 as one JSON text of exactly `bytes` bytes. */
function answerOf(bytes: number): string {
  const empty = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { p: '' } })
  return JSON.stringify({ jsonrpc: '2.0', id: 1, result: { p: 'x'.repeat(bytes - empty.length) } })
}

/** A child that writes `out` on stdout and `err` on stderr once it reads its first line. */
function start(out: string, err = ''): { supervisor: StdioSupervisor; logger: CaptureLogger } {
  const logger = captureLogger()
  const script = `
    require('node:readline').createInterface({ input: process.stdin }).once('line', () => {
      process.stderr.write(${JSON.stringify(err)})
      process.stdout.write(${JSON.stringify(out)})
    })
  `
  const supervisor = new StdioSupervisor({
    command: process.execPath,
    args: ['-e', script],
    maxLineBytes: LIMIT,
    logger,
  })
  running.push(supervisor)
  supervisor.start()
  supervisor.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } })
  return { supervisor, logger }
}

/** The first message the supervisor hands on. */
async function firstMessage(supervisor: StdioSupervisor): Promise<unknown> {
  return new Promise((resolve) => supervisor.once('message', resolve))
}

describe('StdioSupervisor, lines ended with \\r\\n', { timeout: 30_000 }, () => {
  it('reads a stdout line of exactly the bound followed by \\r\\n whole', async () => {
    const answer = answerOf(LIMIT)
    const { supervisor } = start(`${answer}\r\n`)
    assert.deepEqual(await firstMessage(supervisor), JSON.parse(answer))
  })

  it('drops a line one byte over the bound followed by \\r\\n, counting no \\r', async () => {
    const { supervisor, logger } = start(`${answerOf(LIMIT + 1)}\r\n`)
    const message = (await firstMessage(supervisor)) as { id: unknown; error: { code: number } }
    assert.equal(message.id, 1)
    assert.equal(message.error.code, -32603)
    await logger.waitFor(/dropped a stdout line of 1025 bytes \(limit 1024\)/)
  })

  it('counts the first \\r of \\r\\r\\n as part of the line', async () => {
    const under = start(`${answerOf(LIMIT - 1)}\r\r\n`)
    assert.deepEqual(await firstMessage(under.supervisor), JSON.parse(answerOf(LIMIT - 1)))
    const over = start(`${answerOf(LIMIT)}\r\r\n`)
    const message = (await firstMessage(over.supervisor)) as { error: { code: number } }
    assert.equal(message.error.code, -32603)
    await over.logger.waitFor(/dropped a stdout line of 1025 bytes \(limit 1024\)/)
  })

  it('drops a line of the bound followed by a lone \\r and more bytes', async () => {
    const { supervisor, logger } = start(`${answerOf(LIMIT)}\r \n`)
    const message = (await firstMessage(supervisor)) as { error: { code: number } }
    assert.equal(message.error.code, -32603)
    await logger.waitFor(/dropped a stdout line of 1026 bytes \(limit 1024\)/)
  })

  it('logs a stderr line of exactly its bound followed by \\r\\n', async () => {
    const line = 'e'.repeat(STDERR_LIMIT)
    const { logger } = start(`${answerOf(100)}\n`, `${line}\r\nnext\r\n`)
    await logger.waitFor(/\] next$/)
    assert.ok(logger.lines.some((l) => l.endsWith(`] ${line}`)))
    assert.ok(!logger.lines.some((l) => /dropped a stderr line/.test(l)))
  })
})
