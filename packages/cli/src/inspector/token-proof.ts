/**
 * `GET /api/proof?nonce=<hex>`: the inspector proves it holds the token without anyone sending it.
 * The page asks before it sends the token anywhere (each connection of the live feed, each call):
 * once `burrow up` has stopped, another program may hold the port, and a page left open would
 * otherwise hand it the token on its next reconnect. The answer is HMAC-SHA256 of the Host asked
 * with and the nonce, keyed with the token, which reveals nothing of the token, so the route
 * needs none.
 */
import { createHmac } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { HttpProblem, sendJson } from './inspector-http.js'

/** The path of the proof route. */
export const PROOF_PATH = '/api/proof'

const NONCE = /^[0-9a-f]{32,128}$/

/**
 * Answer a proof request for `token`, asked with `host` (the request's Host, which the guard
 * checked names this inspector); a missing, repeated or malformed nonce is a 400.
 */
export function serveTokenProof(res: ServerResponse, url: URL, token: string, host: string): void {
  const nonces = url.searchParams.getAll('nonce')
  const nonce = nonces.length === 1 ? nonces[0]! : ''
  if (!NONCE.test(nonce)) {
    throw new HttpProblem(400, 'give one nonce of 32 to 128 lower-case hex digits')
  }
  sendJson(res, 200, { proof: tokenProof(token, host, nonce) })
}

/**
 * HMAC-SHA256 of `host`, a line feed and `nonce`, keyed with `token`, as lower-case hex. The page
 * checks it with its own `location.host`: a program on the port a tab is left open on could
 * otherwise pass the tab's nonce to an inspector elsewhere that has the same fixed token
 * (BURROW_INSPECT_TOKEN, on another address) and hand back its answer, and the tab would send it
 * the token. That inspector answers for the Host it was asked with, its own address, which is
 * not the tab's.
 */
export function tokenProof(token: string, host: string, nonce: string): string {
  return createHmac('sha256', token).update(`${host.toLowerCase()}\n${nonce}`).digest('hex')
}
