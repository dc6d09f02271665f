/**
 * The warning burrowd logs at start for an `smtp://` URL whose STARTTLS someone on the network
 * path could strip: to another machine, without `?requireTLS=true`.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { smtpUrlWarning } from '../../src/mail/mail-settings.js'

describe('smtpUrlWarning', () => {
  it('warns of smtp:// to another machine without requireTLS', () => {
    const warning = smtpUrlWarning('smtp://user:secret@mail.example.com:587')
    assert.match(
      warning ?? '',
      /smtp:\/\/ to mail\.example\.com.*use smtps:\/\/, or add \?requireTLS=true/,
    )
    assert.ok(!warning!.includes('secret'), 'the password is not logged')
    assert.ok(smtpUrlWarning('smtp://10.0.0.5:25') !== null)
  })

  it('is quiet for smtps://, requireTLS and a relay on this machine', () => {
    for (const url of [
      'smtps://user:pw@mail.example.com:465',
      'smtp://mail.example.com:587/?requireTLS=true',
      'smtp://localhost:25',
      'smtp://127.0.0.1:2525',
      'smtp://[::1]:25',
    ]) {
      assert.equal(smtpUrlWarning(url), null, url)
    }
  })
})
