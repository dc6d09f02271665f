/**
 * Tests of the Paddle-Signature check: a valid signature passes; a wrong secret, an altered
 * body, an old or future timestamp and malformed headers fail with a reason; two `h1` values
 * (Paddle rotating) and two configured secrets (us rotating) both work.
 */

import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { describe, it } from 'node:test'
import {
  PADDLE_SIGNATURE_TOLERANCE_SECS,
  signPaddle,
  verifyPaddleSignature,
} from '../../src/billing/paddle-signature.js'

const SECRET = 'pdl_ntfset_01test_secret'
const OTHER = 'pdl_ntfset_01other_secret'
const NOW = 1_700_000_000
const BODY = Buffer.from('{"event_id":"evt_1","event_type":"subscription.created","data":{}}')

function verify(header: string | undefined, body = BODY, secrets = [SECRET], now = NOW) {
  return verifyPaddleSignature(header, body, secrets, now)
}

function refused(result: ReturnType<typeof verify>, fragment: string): void {
  assert.equal(result.ok, false)
  assert.ok(
    !result.ok && result.reason.includes(fragment),
    `reason lacks "${fragment}": ${JSON.stringify(result)}`,
  )
}

describe('signPaddle', () => {
  it('writes ts and the hex HMAC-SHA256 of "ts:body" as Paddle documents', () => {
    const expected = createHmac('sha256', SECRET).update(`${NOW}:${BODY.toString()}`).digest('hex')
    assert.equal(signPaddle(SECRET, NOW, BODY), `ts=${NOW};h1=${expected}`)
    assert.equal(signPaddle(SECRET, NOW, BODY.toString()), signPaddle(SECRET, NOW, BODY))
  })
})

describe('verifyPaddleSignature', () => {
  it('accepts a valid signature', () => {
    assert.deepEqual(verify(signPaddle(SECRET, NOW, BODY)), { ok: true })
  })

  it('refuses a signature made with another secret (forged)', () => {
    refused(verify(signPaddle(OTHER, NOW, BODY)), 'no h1')
  })

  it('refuses a body altered after signing', () => {
    const header = signPaddle(SECRET, NOW, BODY)
    const tampered = Buffer.from(BODY.toString().replace('created', 'canceled'))
    refused(verify(header, tampered), 'no h1')
    // One byte more (a trailing newline) is a different body too.
    refused(verify(header, Buffer.concat([BODY, Buffer.from('\n')])), 'no h1')
  })

  it('refuses a signature whose timestamp is outside the tolerance, either way', () => {
    const edge = PADDLE_SIGNATURE_TOLERANCE_SECS
    assert.ok(verify(signPaddle(SECRET, NOW - edge, BODY)).ok, 'exactly at the edge is accepted')
    assert.ok(verify(signPaddle(SECRET, NOW + edge, BODY)).ok)
    refused(verify(signPaddle(SECRET, NOW - edge - 1, BODY)), 's old')
    refused(verify(signPaddle(SECRET, NOW + edge + 1, BODY)), 'in the future')
  })

  it('refuses a replayed header with a new timestamp but the old h1', () => {
    const h1 = signPaddle(SECRET, NOW - 3600, BODY).split(';h1=')[1]!
    refused(verify(`ts=${NOW};h1=${h1}`), 'no h1')
  })

  it('refuses missing and malformed headers with a reason', () => {
    const h1 = signPaddle(SECRET, NOW, BODY).split(';h1=')[1]!
    refused(verify(undefined), 'missing')
    refused(verify(''), 'missing')
    refused(verify(`h1=${h1}`), 'no ts')
    refused(verify(`ts=${NOW}`), 'no h1')
    refused(verify(`ts=${NOW};h1=${h1};ts=${NOW}`), 'more than one ts')
    refused(verify(`ts=soon;h1=${h1}`), 'not unix seconds')
    refused(verify(`ts=-5;h1=${h1}`), 'not unix seconds')
    refused(verify(`ts=${NOW};h1=${h1.slice(2)}`), 'not 64 hex')
    refused(verify(`ts=${NOW};h1=${'z'.repeat(64)}`), 'not 64 hex')
    refused(verify(`ts=${NOW},h1=${h1}`), 'not unix seconds')
    refused(verify(`ts=${NOW};${h1}`), 'not key=value')
    refused(verify(`ts=${NOW};h1=${h1};` + 'x=1;'.repeat(300)), 'longer than')
    refused(verify(`ts=${NOW}` + `;h1=${h1}`.repeat(9)), 'more than 8')
  })

  it('ignores keys it does not know, so a future scheme beside h1 does not break it', () => {
    assert.ok(verify(`${signPaddle(SECRET, NOW, BODY)};h2=abc`).ok)
  })

  it('accepts a header carrying two h1 while Paddle rotates the secret', () => {
    const old = signPaddle(OTHER, NOW, BODY).split(';h1=')[1]!
    const current = signPaddle(SECRET, NOW, BODY).split(';h1=')[1]!
    assert.ok(verify(`ts=${NOW};h1=${old};h1=${current}`).ok)
    assert.ok(verify(`ts=${NOW};h1=${current};h1=${old}`).ok)
    refused(verify(`ts=${NOW};h1=${old};h1=${old}`), 'no h1')
  })

  it('accepts a signature under any configured secret while we rotate', () => {
    assert.ok(verify(signPaddle(OTHER, NOW, BODY), BODY, [SECRET, OTHER]).ok)
    assert.ok(verify(signPaddle(SECRET, NOW, BODY), BODY, [SECRET, OTHER]).ok)
    refused(verify(signPaddle('pdl_ntfset_third', NOW, BODY), BODY, [SECRET, OTHER]), 'no h1')
  })

  it('refuses everything when no secret is configured', () => {
    refused(verify(signPaddle(SECRET, NOW, BODY), BODY, []), 'no Paddle webhook secret')
  })

  it('honours a tolerance given by the caller', () => {
    const header = signPaddle(SECRET, NOW - 10, BODY)
    assert.equal(verifyPaddleSignature(header, BODY, [SECRET], NOW, 5).ok, false)
    assert.equal(verifyPaddleSignature(header, BODY, [SECRET], NOW, 10).ok, true)
  })
})
