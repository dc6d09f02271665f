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
 * The body, 'too_large' once it passes `limit` bytes (reading stops there), 'over_budget' when
 * reading on would pass `account`'s bounds (the rest is read and discarded), or 'aborted' when the client
 * went away before sending all of it. A body read whole stays taken from the budget (its length):
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
): Promise<Buffer | 'too_large' | 'over_budget' | 'aborted'>
export async function readBody(
  req: IncomingMessage,
  limit: number,
  account?: BodyAccount,
): Promise<Buffer | 'too_large' | 'over_budget' | 'aborted'> {
  const declared = Number(req.headers['content-length'] ?? NaN)
  if (Number.isFinite(declared) && declared > limit) return 'too_large'
  let taken = 0
  const result = await new Promise<Buffer | 'too_large' | 'over_budget' | 'aborted'>((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = (outcome: 'too_large' | 'over_budget') => {
      req.off('data', onData)
      // Past the budget the rest is read and thrown away (the request timeout bounds it), so
      // that the sender, still writing, gets the refusal instead of a reset connection.
      if (outcome === 'over_budget') req.resume()
      else req.pause()
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
    req.on('data', onData)
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
