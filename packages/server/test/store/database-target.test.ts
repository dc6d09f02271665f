/**
 * How messages name a database: never with its password, however the URL spells it. pg reads
 * the password up to the last `@` of the authority, and from a `password` query parameter.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { describeDatabaseTarget, redactDatabaseUrl } from '../../src/store/database-target.js'

describe('database URLs in messages', () => {
  it('hide a password holding an @', () => {
    const named = describeDatabaseTarget({
      dialect: 'postgres',
      url: 'postgres://burrow:hunter@2@db.internal:5432/burrow',
    })
    assert.doesNotMatch(named, /hunter|@2/)
    assert.match(named, /burrow:\*\*\*@/)
  })

  it('hide a password given as a query parameter', () => {
    const named = redactDatabaseUrl('postgres://burrow@db/burrow?sslmode=require&password=hunter2')
    assert.doesNotMatch(named, /hunter2/)
    assert.match(named, /sslmode=require&password=\*\*\*/)
  })

  it('hide a password holding a / that makes the URL unreadable', () => {
    assert.throws(
      () => loadConfig({ BURROW_DATABASE_URL: 'postgres://burrow:hunter/2@db/burrow' }),
      (error: unknown) =>
        error instanceof Error &&
        error.message.includes('BURROW_DATABASE_URL') &&
        !error.message.includes('hunter'),
    )
  })
})
