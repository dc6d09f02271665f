/**
 * The mailbox key mail allowances are counted by: every spelling of one inbox a stranger could
 * sign up with folds to one key (tags, dots, case, a provider's other domains and separators),
 * and addresses of different inboxes do not.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { mailboxKey } from '../../src/mail/mailbox-key.js'

/** Asserts that every one of `spellings` folds to `key`. */
function foldsTo(key: string, spellings: readonly string[]): void {
  for (const email of spellings) assert.equal(mailboxKey(email), key, email)
}

describe('mailboxKey', () => {
  it('folds case, a + tag and dots for every domain', () => {
    foldsTo('victim@example.com', [
      'victim@example.com',
      'victim+1@example.com',
      'Vic.Tim+news@EXAMPLE.com',
      'v.i.c.t.i.m@example.com',
      'VICTIM+a+b@Example.COM',
      ' victim@example.com ',
    ])
    assert.equal(mailboxKey('+only@example.com'), '+only@example.com')
    assert.notEqual(mailboxKey('victim@example.org'), 'victim@example.com')
  })

  it("folds Gmail's other domain into gmail.com", () => {
    foldsTo('victim@gmail.com', [
      'VICTIM@GMAIL.COM',
      'victim+2@gmail.com',
      'victim@googlemail.com',
      'v.i.c.t.i.m+spam@GoogleMail.com',
    ])
  })

  it('cuts at a - only where the provider reads it as a tag (Yahoo)', () => {
    foldsTo('victim@yahoo.com', [
      'victim-shop@yahoo.com',
      'Victim-x-y@Yahoo.com',
      'victim+z@yahoo.com',
    ])
    foldsTo('victim@yahoo.co.uk', ['victim-shop@yahoo.co.uk'])
    foldsTo('victim@ymail.com', ['victim-shop@ymail.com'])
    // Elsewhere a - is part of the name: first-last@ is not first@.
    assert.equal(mailboxKey('first-last@example.com'), 'first-last@example.com')
    assert.equal(mailboxKey('first-last@gmail.com'), 'first-last@gmail.com')
    assert.equal(mailboxKey('first-last@yahoo.co.jp'), 'first-last@yahoo.co.jp')
  })

  it("folds Proton's, Yandex's and iCloud's domains and the characters they ignore", () => {
    foldsTo('firstlast@proton.me', [
      'first.last@protonmail.com',
      'first-last@pm.me',
      'first_last+x@protonmail.ch',
      'FirstLast@proton.me',
    ])
    foldsTo('firstlast@yandex.ru', [
      'first-last@ya.ru',
      'first.last@yandex.com',
      'firstlast+a@yandex.by',
    ])
    foldsTo('victim@icloud.com', ['victim@me.com', 'victim+x@mac.com'])
    // Other providers keep their - and _.
    assert.equal(mailboxKey('first_last@example.com'), 'first_last@example.com')
  })

  it("folds Fastmail's subdomain addressing into the user's mailbox", () => {
    foldsTo('victim@fastmail.com', ['anything@victim.fastmail.com', 'victim+x@fastmail.com'])
    assert.equal(mailboxKey('a@b.victim.fastmail.com'), 'a@b.victim.fastmail.com')
  })

  it('gives many tagged spellings of one inbox one key, and different inboxes theirs', () => {
    const keys = new Set<string>()
    for (let i = 0; i < 500; i++) {
      keys.add(mailboxKey(`victim+${i}@gmail.com`))
      keys.add(mailboxKey(`${'victim'.split('').join(i % 2 ? '.' : '')}+${i}@googlemail.com`))
      keys.add(mailboxKey(`victim-${i}@yahoo.com`))
    }
    assert.deepEqual([...keys].sort(), ['victim@gmail.com', 'victim@yahoo.com'])
    assert.notEqual(mailboxKey('victim@hotmail.com'), mailboxKey('victim@outlook.com'))
  })
})
