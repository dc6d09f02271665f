import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { asSentence, newPasswordSentence } from '../../../src/app/dashboard/as-sentence.js'
import { passwordProblem } from '../../../src/store/password.js'

describe('asSentence', () => {
  it('starts with a capital and ends with a full stop, once', () => {
    assert.equal(asSentence('password must be long'), 'Password must be long.')
    assert.equal(asSentence('Already a sentence.'), 'Already a sentence.')
    assert.equal(asSentence('a question?'), 'A question?')
    assert.equal(asSentence('ends (in brackets)'), 'Ends (in brackets).')
  })

  it('leaves a message that starts with a quote or a digit as it is, but for the stop', () => {
    assert.equal(asSentence('"x" is taken'), '"x" is taken.')
    assert.equal(asSentence('2 tunnels'), '2 tunnels.')
  })

  it('hostile: empty, huge and markup-bearing messages', () => {
    assert.equal(asSentence(''), '.')
    const huge = 'a'.repeat(1_000_000)
    assert.equal(asSentence(huge).length, huge.length + 1)
    // Markup stays text: the notice escapes it when drawn.
    assert.equal(asSentence('<b>x</b>'), '<b>x</b>.')
  })
})

describe('newPasswordSentence', () => {
  it('says "the new password" only where the problem names the password', () => {
    assert.equal(
      newPasswordSentence(passwordProblem('short') ?? ''),
      'The new password must be at least 8 characters long.',
    )
    // It said "The new that password is one of the most commonly used ones".
    assert.match(
      newPasswordSentence(passwordProblem('password123') ?? ''),
      /^That password is one of the most commonly used ones; .*\.$/,
    )
  })
})
