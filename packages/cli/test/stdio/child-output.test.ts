/**
 * A stdio server's stdout read as JSON-RPC, from a real child: valid messages (a batch's one by
 * one) are passed on, and lines that are not JSON, not JSON-RPC, or invalid messages are
 * reported and skipped; stderr lines are passed on as text.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, it } from 'node:test'
import type { JsonRpcMessage } from '@burrow/protocol'
import { readChildOutput } from '../../src/stdio/child-output.js'

const OUTPUT = [
  '{"jsonrpc":"2.0","id":1,"result":{}}',
  'not json',
  '',
  '42',
  '{"jsonrpc":"2.0","id":{},"method":"x"}',
  '[{"jsonrpc":"2.0","method":"notifications/a"},{"jsonrpc":"1.0","method":"b"}]',
  '{"jsonrpc":"2.0","id":9007199254740993,"method":"sampling/createMessage","params":{}}',
]

describe('readChildOutput', () => {
  it('passes valid JSON-RPC on and says why it skips the rest', async () => {
    const script =
      `process.stdout.write(${JSON.stringify(OUTPUT.join('\n') + '\n')});` +
      `process.stderr.write('a warning\\n')`
    const child = spawn(process.execPath, ['-e', script])
    const messages: JsonRpcMessage[] = []
    const skipped: string[] = []
    const stderr: string[] = []
    readChildOutput(child, 1024, {
      onMessage: (m) => messages.push(m),
      onStderrLine: (line) => stderr.push(line),
      onSkipped: (description) => skipped.push(description),
    })
    await once(child, 'close')
    assert.deepEqual(messages, [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', method: 'notifications/a' },
    ])
    assert.deepEqual(stderr, ['a warning'])
    assert.equal(skipped.length, 5)
    assert.match(skipped[0]!, /^skipped a stdout line that is not JSON: not json$/)
    assert.match(skipped[1]!, /^skipped a stdout line that is not JSON-RPC \(.*object\): 42$/)
    assert.match(skipped[2]!, /^skipped an invalid JSON-RPC message \(a request id .*\) on stdout/)
    assert.match(skipped[3]!, /^skipped an invalid JSON-RPC message \(.*"2\.0"\) on stdout/)
    // An id JavaScript would round: the agent's answer could never be matched to it.
    assert.match(skipped[4]!, /^skipped an invalid JSON-RPC message \(a numeric id must lie within/)
  })
})
