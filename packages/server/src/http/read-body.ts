/**
 * Reads a public request's body up to a limit. JSON-RPC messages are small; the edge must see a
 * POST body whole to count and govern it, so it is read before forwarding, never beyond the limit.
 */
import type { IncomingMessage } from 'node:http'
import { ByteBlocks } from '@burrow/protocol'
import type { BodyBudget, BodyHolder } from './body-budget.js'

const EMPTY = Buffer.alloc(0)

/** Where a body's bytes are counted: a budget, and who holds them. */
export interface BodyAccount {
  readonly budget: BodyBudget
  readonly holder: BodyHolder
}

/**
 * Emitted on a request answered while its body is still arriving (its access taken away:
 * `edge/end-revoked.ts`), with the `AnswerOnceRead` that sends the answer. The body is read on
 * under the same bounds (the size limit and the body budgets), so that the answer can name the
 * requests it refuses: `answer` gets the body once it has all arrived, or null as soon as reading
 * on would pass a bound (what was read is let go at once, and the rest is read and discarded), so
 * that the sender, still writing, gets that answer instead of a reset.
 */
export const ANSWERED_WHILE_READING: unique symbol = Symbol('answered while reading')

/**
 * Sends the answer of a request answered while its body arrives: given the body read whole, or
 * null when it passed a bound (or could not be kept). Called once, before the read settles.
 */
export type AnswerOnceRead = (body: Buffer | null) => void

/**
 * The body, 'too_large' once it passes `limit` bytes (reading stops there), 'over_budget' when
 * reading on would pass `account`'s bounds (the rest is read and discarded), 'answered' when
 * the request was answered meanwhile (`ANSWERED_WHILE_READING`: it settles once the body was
 * handed to that answer, or a bound passed and the rest is being discarded), or 'aborted' when
 * the client went away before sending all of it. A body read whole stays taken from the budget (its length):
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
    let settled = false
    /** The answer waiting for the body, once the request was answered while it arrives. */
    let answer: AnswerOnceRead | null = null
    const resolve = (outcome: Outcome) => {
      if (settled) return
      settled = true
      req.off(ANSWERED_WHILE_READING, onAnswered)
      settle(outcome)
    }
    // A body that comes in one chunk (most do) is kept as it came. Past one, the chunks are
    // copied into blocks: node gives a chunked body one Buffer per chunk, and a body sent one
    // byte per chunk, kept as it came, held some 200 bytes of heap per byte the budgets counted.
    let first: Buffer | null = null
    let blocks: ByteBlocks | null = null
    let size = 0
    const stop = (outcome: 'too_large' | 'over_budget') => {
      req.off('data', onData)
      // What was read is given back to the budget: let go of it too (the 'end' listener, still
      // attached while the rest arrives, would otherwise keep it until the body ends).
      first = null
      blocks = null
      // Past the budget, or answered already, the rest is read and thrown away (the request
      // timeout bounds it), so that the sender, still writing, gets the answer, not a reset.
      if (outcome === 'too_large' && answer === null) req.pause()
      else req.resume()
      if (answer === null) return resolve(outcome)
      // Answered meanwhile: the answer goes without the body, which passed a bound.
      const answerWithout = answer
      resolve('answered')
      answerWithout(null)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) return stop('too_large')
      if (account) {
        if (!account.budget.take(account.holder, chunk.length)) return stop('over_budget')
        taken += chunk.length
      }
      if (blocks !== null) return blocks.push(chunk)
      if (first === null) return void (first = chunk)
      blocks = new ByteBlocks()
      blocks.push(first)
      blocks.push(chunk)
      first = null
    }
    // Reading goes on, under the same bounds, for the answer to name the requests it refuses.
    const onAnswered = (answerOnceRead: AnswerOnceRead) => {
      answer ??= answerOnceRead
    }
    req.on('data', onData)
    req.on(ANSWERED_WHILE_READING, onAnswered)
    req.once('end', () => {
      if (settled) return
      const bytes = first ?? blocks?.bytes() ?? EMPTY
      const body = Buffer.isBuffer(bytes)
        ? bytes
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      first = null
      blocks = null
      if (answer === null) return resolve(body)
      const answerWith = answer
      resolve('answered')
      answerWith(body)
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
