/**
 * Paddle's webhook signature (`Paddle-Signature: ts=…;h1=…`): HMAC-SHA256, hex, over
 * `"{ts}:{raw body}"` keyed with the notification destination's secret. `signPaddle` makes one
 * (the dev provider and tests sign with it); `verifyPaddleSignature` checks one on the raw bytes
 * as received. Our own verifier rather than Paddle's SDK: it compares in constant time, accepts
 * any of several `h1` values (Paddle sends two while a secret is rotated on their side) against
 * any of several configured secrets (rotation on ours), and allows clock skew both ways.
 */

import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * How far the signature's timestamp may be from our clock, either way, in seconds. Paddle's SDK
 * allows 5 s, and only into the past; that rejects genuine deliveries whenever a node's clock
 * drifts a few seconds or a request sits in a proxy queue. Replays are not what the window has to
 * stop (a replayed event is a duplicate of its `event_id` and changes nothing); it only bounds how
 * long a captured request stays usable. Five minutes, as Standard Webhooks and Stripe use.
 */
export const PADDLE_SIGNATURE_TOLERANCE_SECS = 300

/** Longest header we parse; a real one with two `h1` is about 150 characters. */
const MAX_HEADER_LENGTH = 1024
/** Most `h1` values we compare (each costs an HMAC comparison per secret). */
const MAX_SIGNATURES = 8

/** The outcome of a check; `reason` says what was wrong, for logs and the 401 body. */
export type SignatureCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string }

/** The `Paddle-Signature` header value for `rawBody` signed with `secret` at unix second `ts`. */
export function signPaddle(secret: string, ts: number, rawBody: Buffer | string): string {
  return `ts=${ts};h1=${mac(secret, ts, rawBody).toString('hex')}`
}

/**
 * Check a `Paddle-Signature` header against the raw request body. Accepted when the header is
 * well formed, its `ts` is within `toleranceSecs` of `nowSecs`, and one of its `h1` values is the
 * HMAC of `"{ts}:{rawBody}"` under one of `secrets`. Unknown keys in the header are ignored, so a
 * future scheme beside `h1` does not break verification.
 */
export function verifyPaddleSignature(
  header: string | undefined,
  rawBody: Buffer,
  secrets: readonly string[],
  nowSecs: number,
  toleranceSecs = PADDLE_SIGNATURE_TOLERANCE_SECS,
): SignatureCheck {
  if (secrets.length === 0) return fail('no Paddle webhook secret is configured')
  if (header === undefined || header.trim() === '') {
    return fail('the Paddle-Signature header is missing')
  }
  if (header.length > MAX_HEADER_LENGTH) {
    return fail(`the Paddle-Signature header is longer than ${MAX_HEADER_LENGTH} characters`)
  }
  let ts: number | undefined
  const signatures: Buffer[] = []
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    const key = part.slice(0, eq).trim()
    const value = part.slice(eq + 1).trim()
    if (eq <= 0 || key === '') {
      return fail(`malformed Paddle-Signature header: "${clip(part)}" is not key=value`)
    }
    if (key === 'ts') {
      if (ts !== undefined) return fail('malformed Paddle-Signature header: more than one ts')
      if (!/^\d{1,12}$/.test(value)) {
        return fail(`malformed Paddle-Signature header: ts "${clip(value)}" is not unix seconds`)
      }
      ts = Number(value)
    } else if (key === 'h1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) {
        return fail(`malformed Paddle-Signature header: h1 "${clip(value)}" is not 64 hex digits`)
      }
      if (signatures.length === MAX_SIGNATURES) {
        return fail(`malformed Paddle-Signature header: more than ${MAX_SIGNATURES} h1 values`)
      }
      signatures.push(Buffer.from(value, 'hex'))
    }
  }
  if (ts === undefined) return fail('malformed Paddle-Signature header: no ts')
  if (signatures.length === 0) return fail('malformed Paddle-Signature header: no h1')
  const skew = nowSecs - ts
  if (Math.abs(skew) > toleranceSecs) {
    const when = skew > 0 ? `${skew} s old` : `${-skew} s in the future`
    return fail(`signature timestamp ${ts} is ${when}; at most ${toleranceSecs} s is accepted`)
  }
  for (const secret of secrets) {
    const expected = mac(secret, ts, rawBody)
    // Both sides are 32 bytes, as timingSafeEqual requires; no early exit inside a comparison.
    if (signatures.some((signature) => timingSafeEqual(expected, signature))) return { ok: true }
  }
  return fail(
    'no h1 in the Paddle-Signature header matches the body under a configured secret ' +
      '(forged, altered in transit, or signed with a secret burrowd does not have)',
  )
}

function mac(secret: string, ts: number, rawBody: Buffer | string): Buffer {
  // The body is hashed as the bytes received, never re-encoded.
  return createHmac('sha256', secret).update(`${ts}:`).update(rawBody).digest()
}

function fail(reason: string): SignatureCheck {
  return { ok: false, reason }
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}
