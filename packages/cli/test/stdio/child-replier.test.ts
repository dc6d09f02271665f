/**
 * What `burrow up` answers a child itself (errors for its own requests in lines it cannot
 * forward) is bounded like everything else written to the child: a child that never reads its
 * stdin while writing such lines does not make `burrow up` hold the answers without end.
 */
import assert from 'node:assert/strict'
import type { ChildProcess, SpawnOptions } from 'node:child_process'
import { afterEach, describe, it } from 'node:test'
import crossSpawn from 'cross-spawn'
import { StdioSupervisor } from '../../src/stdio/stdio-supervisor.js'
import { MAX_MESSAGE_DEPTH } from '../../src/stdio/message-depth.js'
import { captureLogger } from '../helpers/capture-logger.js'

const running: StdioSupervisor[] = []

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()))
})

/**
 * A child that never reads stdin and writes, without end, lines holding a request nested too deep
 * and 1,000 small requests (40 bytes each; each answered with an error of some 200).
 */
const FLOODING_CHILD = `
  const deep = '['.repeat(${MAX_MESSAGE_DEPTH + 1}) + ']'.repeat(${MAX_MESSAGE_DEPTH + 1})
  let id = 0
  const line = () => {
    const small = []
    for (let i = 0; i < 1000; i++) small.push('{"jsonrpc":"2.0","id":' + ++id + ',"method":"x"}')
    return '[{"jsonrpc":"2.0","id":' + ++id + ',"method":"x","params":' + deep + '},' + small.join(',') + ']\\n'
  }
  const pump = () => {
    while (process.stdout.write(line()));
    process.stdout.once('drain', pump)
  }
  pump()
`

describe('StdioSupervisor, answers to a child that does not read', { timeout: 60_000 }, () => {
  it('drops them past the bound of what may wait for the child', async () => {
    const logger = captureLogger()
    let child: ChildProcess | undefined
    const bound = 64 * 1024
    const supervisor = new StdioSupervisor({
      command: process.execPath,
      args: ['-e', FLOODING_CHILD],
      logger,
      maxQueuedBytes: bound,
      closeGraceMs: 200,
      spawn: (command: string, args: readonly string[], options: SpawnOptions) =>
        (child = crossSpawn(command, [...args], options)),
    })
    running.push(supervisor)
    supervisor.start()
    // 200 lines: 200,000 answers of some 200 bytes, 40 MB had they all been kept.
    await logger.waitForCount(/nested too deep/, 200, 30_000)
    const waiting = child!.stdin!.writableLength
    assert.ok(waiting <= bound + 64 * 1024, `${waiting} bytes wait for the child`)
    await logger.waitFor(/not delivered to the stdio server.*dropped until it reads/)
  })
})
