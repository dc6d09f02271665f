/**
 * UrlElicitations: the memory of which agent each URL-mode elicitation went to, its bounds, and
 * the ids a -32042 error names. Through real servers: aggregator-url-elicitations.test.ts and
 * stdio-url-elicitations.test.ts.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  MAX_ELICITATION_ID_LENGTH,
  requiredUrlElicitations,
  UrlElicitations,
} from '../../src/front/url-elicitations.js'

describe('UrlElicitations', () => {
  const agent = (sessionId: string) => ({ sessionId, relatedTo: undefined })

  it('keeps each upstream apart, and gives each elicitation once', () => {
    const memory = new UrlElicitations()
    memory.note('a', 'x', agent('s1'))
    memory.note('b', 'x', agent('s2'))
    assert.equal(memory.take('b', 'x')?.sessionId, 's2')
    assert.equal(memory.take('b', 'x'), undefined)
    assert.equal(memory.take('a', 'x')?.sessionId, 's1')
    assert.equal(memory.size, 0)
  })

  it('forgets the oldest past its bound, and ids that are not strings or too long', () => {
    const memory = new UrlElicitations(3)
    for (const id of ['1', '2', '3', '4']) memory.note('a', id, agent(`s${id}`))
    assert.equal(memory.size, 3)
    assert.equal(memory.take('a', '1'), undefined)
    assert.equal(memory.take('a', '4')?.sessionId, 's4')
    for (const id of [7, null, '', 'x'.repeat(MAX_ELICITATION_ID_LENGTH + 1)]) {
      memory.note('a', id, agent('s'))
      assert.equal(memory.take('a', id), undefined)
    }
    assert.equal(memory.size, 2)
  })

  it("drops a session's elicitations", () => {
    const memory = new UrlElicitations()
    memory.note('a', 'x', agent('s1'))
    memory.note('a', 'y', agent('s2'))
    memory.dropSession('s1')
    assert.equal(memory.take('a', 'x'), undefined)
    assert.equal(memory.take('a', 'y')?.sessionId, 's2')
  })

  it('reads the URL-mode ids of a -32042 error, and nothing of other errors', () => {
    const elicitations = [
      { mode: 'url', elicitationId: 'e1' },
      { mode: 'form', elicitationId: 'e2' },
      { mode: 'url', elicitationId: 3 },
      null,
      'junk',
    ]
    assert.deepEqual(requiredUrlElicitations({ code: -32042, data: { elicitations } }), ['e1'])
    assert.deepEqual(requiredUrlElicitations({ code: -32603, data: { elicitations } }), [])
    assert.deepEqual(requiredUrlElicitations({ code: -32042, data: { elicitations: 'x' } }), [])
    assert.deepEqual(requiredUrlElicitations({ code: -32042 }), [])
  })
})
