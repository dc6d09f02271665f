/**
 * The log of node links that could not be opened: one line a minute per peer, with the count of
 * failures since its last, so that strangers' requests cannot flood the log and a peer down for
 * good cannot keep another, failing at the same time, out of it.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LINK_FAILURE_LOG_MS, LinkFailureLog } from '../../src/cluster/link-failure-log.js'

describe('LinkFailureLog', () => {
  const started = () => {
    const lines: string[] = []
    let now = 1_000_000
    const log = new LinkFailureLog(
      { ...silentLogger, warn: (line: string) => void lines.push(line) },
      () => now,
    )
    return { log, lines, pass: (ms: number) => (now += ms) }
  }

  it('writes a line per peer at most once a minute, with the count since the last', () => {
    const { log, lines, pass } = started()
    for (let i = 0; i < 50; i++) {
      log.failed('http://x', new Error('x refused the link'))
      log.failed('http://y', new Error('y refused the link'))
    }
    // Before, the first peer's failures took the node's one line a minute, and y was only counted.
    assert.deepEqual(
      lines.map((l) => l.slice(0, 'cluster: x refused the link'.length)),
      ['cluster: x refused the link', 'cluster: y refused the link'],
    )
    pass(LINK_FAILURE_LOG_MS)
    log.failed('http://y', new Error('y refused the link'))
    assert.equal(lines.length, 3)
    assert.match(
      lines[2]!,
      /y refused the link \(and 49 more failed links to it since the last line\)/,
    )
    log.failed('http://y', new Error('y refused the link'))
    assert.equal(lines.length, 3)
  })
})
