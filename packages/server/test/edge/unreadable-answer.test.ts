/**
 * The charsets an answer's content type names, as the edge judges whether it can read the answer
 * (relay-response.test.ts has the refusals themselves).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { charsetsOf, unreadableAnswer } from '../../src/edge/unreadable-answer.js'

describe('unreadableAnswer', () => {
  it('reads every charset a content type names, quoted or not, in any case', () => {
    assert.deepEqual(charsetsOf(undefined), [])
    assert.deepEqual(charsetsOf('application/json'), [])
    assert.deepEqual(charsetsOf('text/plain; Charset="UTF-16LE"'), ['utf-16le'])
    assert.deepEqual(charsetsOf('text/plain;charset=utf-8; x=1; CHARSET=utf-7'), ['utf-8', 'utf-7'])
    assert.deepEqual(charsetsOf('text/plain; charset'), [])
  })

  it('finds an answer unreadable in a charset that writes ASCII otherwise, not in Latin-1', () => {
    const head = (type: string) => ({ status: 500, headers: [['content-type', type]] as const })
    for (const type of [
      'text/plain; charset=utf-16',
      'text/plain; charset=UTF-32BE',
      'text/html; charset=utf-7',
      'text/plain; charset=ibm037',
      'application/json; charset=utf-8; charset=utf-16le',
    ]) {
      const unreadable = unreadableAnswer(head(type), 'other', type, false)
      assert.ok(unreadable !== null, type)
      assert.equal(unreadable.asText, false)
    }
    for (const type of [
      'text/plain',
      'text/plain; charset=utf-8',
      'text/plain; charset=UTF8',
      'text/plain; charset=us-ascii',
      'text/plain; charset=iso-8859-15',
      'text/plain; charset=windows-1252',
      'text/plain; charset="latin1"',
    ]) {
      assert.equal(unreadableAnswer(head(type), 'other', type, false), null, type)
    }
  })
})
