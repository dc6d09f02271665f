/**
 * `GET /api/proof?nonce=<hex>`: the inspector proves it holds the token without anyone sending it.
 * The page asks before it sends the token anywhere (each connection of the live feed, each call):
 * once `burrow up` has stopped, another program may hold the port, and a page left open would
 * otherwise hand it the token on its next reconnect. The answer is HMAC-SHA256 of the nonce
 * keyed with the token, which reveals nothing of the token, so the route needs none.
 */
import { createHmac } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { HttpProblem, sendJson } from './inspector-http.js'

/** The path of the proof route. */
export const PROOF_PATH = '/api/proof'

const NONCE = /^[0-9a-f]{32,128}$/

/** Answer a proof request for `token`; a missing, repeated or malformed nonce is a 400. */
export function serveTokenProof(res: ServerResponse, url: URL, token: string): void {
  const nonces = url.searchParams.getAll('nonce')
  const nonce = nonces.length === 1 ? nonces[0]! : ''
  if (!NONCE.test(nonce)) {
    throw new HttpProblem(400, 'give one nonce of 32 to 128 lower-case hex digits')
  }
  sendJson(res, 200, { proof: tokenProof(token, nonce) })
}

/** HMAC-SHA256 of `nonce` keyed with `token`, as lower-case hex. */
export function tokenProof(token: string, nonce: string): string {
  return createHmac('sha256', token).update(nonce).digest('hex')
}
