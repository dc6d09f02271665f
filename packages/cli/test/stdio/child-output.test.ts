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

describe('readChildOutput, a line nested too deep', () => {
  it("answers the server's requests in it, errors its answers for the agent, skips the rest", async () => {
    const deep = `${'['.repeat(1_001)}${']'.repeat(1_001)}`
    const line = JSON.stringify([
      { jsonrpc: '2.0', id: 'q', method: 'sampling/createMessage', params: { deep: 0 } },
      { jsonrpc: '2.0', id: 3, result: {} },
      { jsonrpc: '2.0', method: 'notifications/message' },
    ]).replace('"deep":0', `"deep":${deep}`)
    const child = spawn(process.execPath, [
      '-e',
      `process.stdout.write(${JSON.stringify(line + '\n')})`,
    ])
    const messages: JsonRpcMessage[] = []
    const replies: JsonRpcMessage[] = []
    const skipped: string[] = []
    readChildOutput(child, 1024 * 1024, {
      onMessage: (m) => messages.push(m),
      onStderrLine: () => {},
      onSkipped: (description) => skipped.push(description),
      onReply: (m) => replies.push(m),
    })
    await once(child, 'close')
    assert.equal(skipped.length, 1)
    assert.match(skipped[0]!, /^skipped a stdout line nested too deep to forward/)
    assert.deepEqual(
      messages.map((m) => [
        (m as { id?: unknown }).id,
        (m as { error?: { code: number } }).error?.code,
      ]),
      [[3, -32603]],
    )
    assert.deepEqual(
      replies.map((m) => [
        (m as { id?: unknown }).id,
        (m as { error?: { code: number } }).error?.code,
      ]),
      [['q', -32600]],
    )
  })
})
