import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLogger } from '../src/logger.js'

function collect() {
  const lines: string[] = []
  return { lines, log: createLogger('debug', (line) => lines.push(line)) }
}

describe('createLogger', () => {
  it('writes one tagged line per message, at or below its level', () => {
    const { lines, log } = collect()
    log.info('started')
    log.trace('not written')
    assert.deepEqual(lines, ['INFO  started\n'])
  })

  it("keeps others' text from forging entries or reaching the terminal as controls", () => {
    const { lines, log } = collect()
    const tool = 'evil\nERROR burrowd: database lost\r\u001b[2J\u2028x'
    log.warn(`tool ${tool} changed`)
    assert.equal(lines.length, 1)
    const written = lines[0]!
    // Every line after the first is indented past the level tags: none reads as an entry.
    for (const line of written.slice(0, -1).split('\n').slice(1)) assert.match(line, /^ {6}/)
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(written, /\r|\u001b|\u2028/)
    assert.equal(
      written,
      'WARN  tool evil\n      ERROR burrowd: database lost\\x0d\\x1b[2J\\u2028x changed\n',
    )
  })

  it('shows direction marks and zero-width characters instead of obeying them', () => {
    const { lines, log } = collect()
    log.warn('tool "safe\u202egnp.exe\u200b" changed')
    assert.equal(lines[0], 'WARN  tool "safe\\u202egnp.exe\\u200b" changed\n')
  })

  it('keeps a stack trace readable', () => {
    const { lines, log } = collect()
    log.error('failed: Error: boom\n    at one (a.js:1:1)')
    assert.equal(lines[0], 'ERROR failed: Error: boom\n          at one (a.js:1:1)\n')
  })
})
