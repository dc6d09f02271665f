import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { callFilter } from '../../../src/app/api/governance-api.js'
import { HttpError } from '../../../src/http/http-error.js'

const filter = (q: string) => callFilter(new URLSearchParams(q))

describe('the call filters of the history', () => {
  it('takes a time of years 0 to 9999, as the history stores times', () => {
    assert.equal(
      filter('since=2026-11-25T10:00:00Z').since?.toISOString(),
      '2026-11-25T10:00:00.000Z',
    )
    assert.equal(filter('since=0001-01-01').since?.toISOString(), '0001-01-01T00:00:00.000Z')
  })

  it('refuses a time the history cannot compare, instead of listing every call', () => {
    // Stored times are ISO text compared as text: `+275760-…` or `-000001-…` sorts before
    // every stored time, so such a "since" matched all calls.
    for (const since of ['+275760-09-13T00:00:00Z', '-000001-01-01T00:00:00Z', '+010000-01-01']) {
      assert.throws(
        () => filter(`since=${encodeURIComponent(since)}`),
        (err) => err instanceof HttpError && err.status === 400 && /"since"/.test(err.message),
        since,
      )
    }
  })
})
