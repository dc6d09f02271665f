/**
 * Password rules and hashing: hashes are self-describing scrypt strings with a fresh salt, verify
 * only the password they were made from, and a malformed or hostile stored string is simply a
 * wrong password, never an exception or minutes of hashing.
 */

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  hashPassword,
  passwordProblem,
  TIMING_DECOY_HASH,
  verifyPassword,
} from '../../src/store/password.js'

const HASH = /^scrypt\$32768\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/

describe('passwordProblem', () => {
  it('accepts 8 to 200 characters', () => {
    assert.equal(passwordProblem('burrow-t4'), null)
    assert.equal(passwordProblem('pq'.repeat(100)), null)
    assert.equal(passwordProblem('correct horse battery staple'), null)
  })

  it('refuses common passwords, whatever their case, and one character repeated', () => {
    for (const common of ['password', '12345678', 'PassWord', 'qwertyuiop', 'iloveyou', 'letmein1'])
      assert.match(passwordProblem(common) ?? '', /most commonly used/, common)
    assert.match(passwordProblem('        ') ?? '', /only spaces/)
    assert.match(passwordProblem('\t \t \t \t ') ?? '', /only spaces/)
    assert.match(passwordProblem('aaaaaaaaaa') ?? '', /one character repeated/)
  })

  it('says what is wrong with a short or long password', () => {
    assert.equal(passwordProblem(''), 'password must be at least 8 characters long')
    assert.equal(passwordProblem('1234567'), 'password must be at least 8 characters long')
    assert.equal(passwordProblem('pq'.repeat(101)), 'password must be at most 200 characters long')
  })

  it('counts characters, not UTF-16 units', () => {
    assert.equal(passwordProblem('🦡🐇'.repeat(4)), null)
    assert.equal(passwordProblem('🦡🐇'.repeat(100)), null)
    assert.match(passwordProblem('🦡'.repeat(7)) ?? '', /at least 8/)
  })
})

describe('hashPassword and verifyPassword', () => {
  it('makes a salted, self-describing scrypt hash that verifies only its password', async () => {
    const first = await hashPassword('correct horse')
    const second = await hashPassword('correct horse')
    assert.match(first, HASH)
    assert.notEqual(first, second)
    assert.ok(!first.includes('correct'))
    assert.equal(await verifyPassword('correct horse', first), true)
    assert.equal(await verifyPassword('correct horse', second), true)
    assert.equal(await verifyPassword('correct horsE', first), false)
    assert.equal(await verifyPassword('', first), false)
  })

  it('matches the same password however its accents are encoded', async () => {
    const composed = 'caf\u00e9 au lait'
    const decomposed = 'cafe\u0301 au lait'
    assert.equal(await verifyPassword(decomposed, await hashPassword(composed)), true)
  })

  it('treats a tampered or malformed stored hash as a wrong password', async () => {
    const good = await hashPassword('correct horse')
    const parts = good.split('$')
    const flipped = Buffer.from(parts[5]!, 'base64')
    flipped[0] = flipped[0]! ^ 1
    const withHash = (hash: string) => [...parts.slice(0, 5), hash].join('$')
    const malformed = [
      '',
      'correct horse',
      'scrypt',
      good + '$',
      good.replace('scrypt$', 'bcrypt$'),
      good.replace('$32768$', '$30000$'), // N not a power of two
      good.replace('$32768$', '$1073741824$'), // N far too large: must not hash for minutes
      good.replace('$32768$', '$0$'),
      good.replace('$8$1$', '$999$1$'),
      good.replace('$8$1$', '$8$-1$'),
      good.replace('$8$1$', '$08$1$'),
      withHash(flipped.toString('base64')),
      withHash(parts[5]!.slice(0, 8)), // too short to be a hash
      withHash('not base64!'),
      withHash(parts[5]!.replace('=', '')), // not canonical base64
      [...parts.slice(0, 4), '', parts[5]].join('$'), // empty salt
    ]
    for (const stored of malformed) {
      assert.equal(await verifyPassword('correct horse', stored), false, stored)
    }
  })

  it('keeps the sign-in decoy at the cost of new hashes, matching no password', async () => {
    const prefix = (hash: string) => hash.split('$').slice(0, 4).join('$')
    assert.equal(prefix(TIMING_DECOY_HASH), prefix(await hashPassword('anything at all')))
    assert.match(TIMING_DECOY_HASH, HASH)
    assert.equal(await verifyPassword('', TIMING_DECOY_HASH), false)
    assert.equal(await verifyPassword('password', TIMING_DECOY_HASH), false)
  })
})
