/**
 * Reads a public request's body up to a limit. JSON-RPC messages are small; the edge must see a
 * POST body whole to count and govern it, so it is read before forwarding, never beyond the limit.
 */
import type { IncomingMessage } from 'node:http'
import type { BodyBudget, BodyHolder } from './body-budget.js'

/** Where a body's bytes are counted: a budget, and who holds them. */
export interface BodyAccount {
  readonly budget: BodyBudget
  readonly holder: BodyHolder
}

/**
 * Emitted on a request answered while its body is still arriving (its access taken away:
 * `edge/end-revoked.ts`): reading stops at once, what was read is let go, and the rest is read
 * and discarded, so that the sender, still writing, gets that answer instead of a reset.
 */
export const ANSWERED_WHILE_READING: unique symbol = Symbol('answered while reading')

/**
 * The body, 'too_large' once it passes `limit` bytes (reading stops there), 'over_budget' when
 * reading on would pass `account`'s bounds (the rest is read and discarded), 'answered' when
 * the request was answered meanwhile (`ANSWERED_WHILE_READING`; the rest is read and discarded
 * too), or
 * 'aborted' when the client went away before sending all of it. A body read whole stays taken from the budget (its length):
 * the caller gives it back once the request is answered; any other outcome gives back at once.
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<Buffer | 'too_large' | 'aborted'>
export function readBody(
  req: IncomingMessage,
  limit: number,
  account: BodyAccount,
): Promise<Buffer | 'too_large' | 'over_budget' | 'answered' | 'aborted'>
export async function readBody(
  req: IncomingMessage,
  limit: number,
  account?: BodyAccount,
): Promise<Buffer | 'too_large' | 'over_budget' | 'answered' | 'aborted'> {
  const declared = Number(req.headers['content-length'] ?? NaN)
  if (Number.isFinite(declared) && declared > limit) return 'too_large'
  let taken = 0
  type Outcome = Buffer | 'too_large' | 'over_budget' | 'answered' | 'aborted'
  const result = await new Promise<Outcome>((settle) => {
    const resolve = (outcome: Outcome) => {
      req.off(ANSWERED_WHILE_READING, onAnswered)
      settle(outcome)
    }
    const chunks: Buffer[] = []
    let size = 0
    const stop = (outcome: 'too_large' | 'over_budget' | 'answered') => {
      req.off('data', onData)
      // What was read is given back to the budget: let go of it too (the 'end' listener, still
      // attached while the rest arrives, would otherwise keep it until the body ends).
      chunks.length = 0
      // Past the budget, or answered already, the rest is read and thrown away (the request
      // timeout bounds it), so that the sender, still writing, gets the answer, not a reset.
      if (outcome === 'too_large') req.pause()
      else req.resume()
      resolve(outcome)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) return stop('too_large')
      if (account) {
        if (!account.budget.take(account.holder, chunk.length)) return stop('over_budget')
        taken += chunk.length
      }
      chunks.push(chunk)
    }
    const onAnswered = () => stop('answered')
    req.on('data', onData)
    req.once(ANSWERED_WHILE_READING, onAnswered)
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)))
    req.once('error', () => resolve('aborted'))
    req.once('close', () => {
      if (!req.complete) resolve('aborted')
    })
  })
  // A body read whole stays taken: the caller gives it back when it lets go of it.
  if (!Buffer.isBuffer(result)) account?.budget.give(account.holder, taken)
  return result
}
