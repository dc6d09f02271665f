/**
 * URLs named in configuration errors never show their password, however it is spelt: up to the
 * last `@` of the authority, and a `password` parameter.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { loadConfig } from '../src/config.js'
import { parseMailSettings } from '../src/mail/mail-settings.js'
import { redactUrl } from '../src/redact-url.js'

/** The message of what `fn` throws. */
function thrown(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('expected an error')
}

describe('redactUrl', () => {
  it('hides a password holding @ or /, and a password parameter', () => {
    assert.equal(redactUrl('redis://u:hunter@2@host:6379'), 'redis://u:***@host:6379')
    assert.equal(redactUrl('smtp://u:a/b@mail'), 'smtp://u:***@mail')
    assert.equal(redactUrl('postgres://u@db/x?password=hunter2'), 'postgres://u@db/x?password=***')
    assert.equal(redactUrl('redis://host:6379'), 'redis://host:6379')
  })

  it('hides a password in a URL whose authority is misspelt (missing or extra slashes, no scheme)', () => {
    assert.equal(redactUrl('postgres:/ann:hunter2@db/x'), 'postgres:/ann:***@db/x')
    assert.equal(redactUrl('postgres:///ann:hunter2@db/x'), 'postgres:///ann:***@db/x')
    assert.equal(redactUrl('ann:hunter2@db:5432/x'), 'ann:***@db:5432/x')
    assert.equal(redactUrl('redis:/:hunter2@cache'), 'redis:/:***@cache')
    assert.equal(redactUrl('postgres:/a/b:hunter2@db'), 'postgres:/***@db')
    assert.equal(redactUrl('postgres://ann@db/x'), 'postgres://ann@db/x', 'no password, kept')
  })

  it('keeps the password out of an invalid BURROW_DATABASE_URL message', () => {
    const message = thrown(() => loadConfig({ BURROW_DATABASE_URL: 'postgres:/ann:hunter2@db/x' }))
    assert.match(message, /BURROW_DATABASE_URL/)
    assert.doesNotMatch(message, /hunter2/)
  })

  it('hides the password of a libpq keyword/value string given for a URL', () => {
    assert.equal(redactUrl('host=db user=ann password=hunter2'), 'host=db user=ann password=***')
    assert.equal(redactUrl("password = 'hunter 2' host=db"), 'password = *** host=db')
    assert.equal(redactUrl("host=db password='it\\'s hunter2"), 'host=db password=***')
    assert.equal(redactUrl('host=db mypassword=x'), 'host=db mypassword=x', 'another key, kept')
    const message = thrown(() =>
      loadConfig({ BURROW_DATABASE_URL: 'host=db user=ann password=hunter2 dbname=x' }),
    )
    assert.match(message, /BURROW_DATABASE_URL/)
    assert.doesNotMatch(message, /hunter2/)
  })

  it('keeps the password out of an invalid BURROW_REDIS_URL message', () => {
    const message = thrown(() => loadConfig({ BURROW_REDIS_URL: 'redis://:hunter@secret@' }))
    assert.match(message, /BURROW_REDIS_URL/)
    assert.doesNotMatch(message, /hunter|secret/)
  })

  it('keeps the password out of an invalid BURROW_SMTP_URL message', () => {
    const message = thrown(() =>
      parseMailSettings('smtp://burrow:hunter@secret@', undefined, 'example.com'),
    )
    assert.match(message, /BURROW_SMTP_URL/)
    assert.doesNotMatch(message, /hunter|secret/)
  })
})
