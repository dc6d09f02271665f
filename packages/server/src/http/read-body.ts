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
  /**
   * Whether the request was answered while its body was still arriving (its access taken away):
   * reading stops being reading, and the rest is read and discarded so that the sender, still
   * writing, gets that answer instead of a reset.
   */
  readonly answered?: () => boolean
}

/**
 * The body, 'too_large' once it passes `limit` bytes (reading stops there), 'over_budget' when
 * reading on would pass `account`'s bounds (the rest is read and discarded), 'answered' when
 * `account` says the request was answered meanwhile (the rest is read and discarded too), or
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
  const result = await new Promise<Outcome>((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = (outcome: 'too_large' | 'over_budget' | 'answered') => {
      req.off('data', onData)
      // Past the budget, or answered already, the rest is read and thrown away (the request
      // timeout bounds it), so that the sender, still writing, gets the answer, not a reset.
      if (outcome === 'too_large') req.pause()
      else req.resume()
      resolve(outcome)
    }
    const onData = (chunk: Buffer) => {
      if (account?.answered?.()) return stop('answered')
      size += chunk.length
      if (size > limit) return stop('too_large')
      if (account) {
        if (!account.budget.take(account.holder, chunk.length)) return stop('over_budget')
        taken += chunk.length
      }
      chunks.push(chunk)
    }
    req.on('data', onData)
    req.once('end', () => {
      if (account?.answered?.()) resolve('answered')
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    })
    req.once('error', () => resolve('aborted'))
    req.once('close', () => {
      if (!req.complete) resolve('aborted')
    })
  })
  // A body read whole stays taken: the caller gives it back when it lets go of it.
  if (!Buffer.isBuffer(result)) account?.budget.give(account.holder, taken)
  return result
}
