/**
 * A real child's own requests in a stdout line over the bound: `burrow up` answers each one's
 * top-level id on the child's stdin with an error, as it does a request nested too deep, and the
 * answers of such a batch still become errors for their agents; notifications get nothing.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { StdioSupervisor, type StdioSupervisorOptions } from '../../src/stdio/stdio-supervisor.js'
import { captureLogger, type CaptureLogger } from '../helpers/capture-logger.js'

const running: StdioSupervisor[] = []

function supervise(options: StdioSupervisorOptions): StdioSupervisor {
  const supervisor = new StdioSupervisor(options)
  running.push(supervisor)
  return supervisor
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()))
})

/** A child that writes `line` once it is sent a first message, then logs each line it reads. */
function childWriting(line: string): string {
  return `
    const { createInterface } = require('node:readline')
    let first = true
    createInterface({ input: process.stdin }).on('line', (l) => {
      if (first) {
        first = false
        process.stdout.write(${JSON.stringify(line + '\n')})
      } else console.error('read: ' + l)
    })
  `
}

interface Reply {
  id: unknown
  error: { code: number; message: string }
}

/** The first `count` lines the child logged it read, parsed. */
async function readByChild(logger: CaptureLogger, count: number): Promise<Reply[]> {
  const lines = await logger.waitForCount(/read: /, count)
  return lines.map((line) => JSON.parse(/read: (.*)$/.exec(line)![1]!) as Reply)
}

describe(
  'StdioSupervisor, requests of the child in a line over the bound',
  { timeout: 30_000 },
  () => {
    it('answers a single request its error on stdin, for its top-level id only', async () => {
      const logger = captureLogger()
      const request = {
        jsonrpc: '2.0',
        method: 'sampling/createMessage',
        params: { id: 'nested', messages: [{ id: 7, text: 'x'.repeat(4_000) }] },
        id: 'big "one"',
      }
      const supervisor = supervise({
        command: process.execPath,
        args: ['-e', childWriting(JSON.stringify(request))],
        maxLineBytes: 1024,
        logger,
      })
      supervisor.start()
      supervisor.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
      const [reply] = await readByChild(logger, 1)
      assert.equal(reply!.id, 'big "one"')
      assert.equal(reply!.error.code, -32600)
      assert.match(reply!.error.message, /more than the 1024 bytes burrow reads from one line/)
      await logger.waitFor(/dropped a stdout line of \d+ bytes \(limit 1024\), 1 request of the/)
    })

    it("errors a batch's answers for the agent and its requests for the child", async () => {
      const logger = captureLogger()
      const pad = 'x'.repeat(4_000)
      const batch = [
        { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: pad, id: 50 }] } },
        { jsonrpc: '2.0', id: 'r1', method: 'roots/list', params: { id: 51 } },
        { jsonrpc: '2.0', method: 'notifications/message', params: { id: 52, data: pad } },
        { jsonrpc: '2.0', method: 'ping', id: 2 },
      ]
      const supervisor = supervise({
        command: process.execPath,
        args: ['-e', childWriting(JSON.stringify(batch))],
        maxLineBytes: 1024,
        logger,
      })
      const messages: unknown[] = []
      supervisor.on('message', (m) => messages.push(m))
      supervisor.start()
      supervisor.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } })
      const replies = await readByChild(logger, 2)
      assert.deepEqual(
        replies.map((r) => [r.id, r.error.code]),
        [
          ['r1', -32600],
          [2, -32600],
        ],
      )
      while (messages.length < 1)
        await new Promise((resolve) => supervisor.once('message', resolve))
      const [answer] = messages as Reply[]
      assert.equal(answer!.id, 1)
      assert.equal(answer!.error.code, -32603)
      await logger.waitFor(/, 2 requests of the server answered with an error, a batch of 1 answer/)
    })
  },
)
