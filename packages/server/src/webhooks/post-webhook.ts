/**
 * One delivery attempt over HTTP: POST the body to the endpoint through the URL guard's
 * dispatcher (never following redirects), within a deadline, and say what happened in the terms
 * the dispatcher acts on and the delivery log shows. Reads at most a short prefix of the
 * receiver's answer, so a hostile receiver cannot make burrowd buffer a large body.
 */

import { request } from 'undici'
import type { Dispatcher } from 'undici'
import { parseRetryAfter } from './retry-schedule.js'
import { deliveryError, type DeliveryError } from './delivery-error.js'
import { informationalLimit } from './informational-limit.js'
import { LookupBusyError } from './system-resolve.js'
import type { UrlGuard } from './url-guard.js'

/** What one attempt came to. */
export type AttemptOutcome =
  /** A 2xx answer. */
  | { readonly kind: 'delivered'; readonly status: number }
  /** 410 Gone: the receiver asks for no more events; the endpoint is disabled at once. */
  | { readonly kind: 'gone'; readonly status: 410; readonly error: string }
  /**
   * Not tried: burrowd's own name lookups were all busy (held by other receivers' names) for as
   * long as this one could wait. Nothing is known of the receiver; the attempt is not its failure.
   */
  | { readonly kind: 'busy'; readonly error: string }
  /** Anything else: another status, no answer, or a refused address. */
  | {
      readonly kind: 'failed'
      /** The HTTP status, or null when there was no answer. */
      readonly status: number | null
      readonly error: string
      /** For burrowd's log, where it says more than `error` (delivery-error.ts). */
      readonly detail?: string
      /** The receiver's `Retry-After` (429, 503) in ms, if it sent one. */
      readonly retryAfterMs: number | null
    }

/** An outcome of an attempt that reached the point of trying the receiver. */
export type TriedOutcome = Exclude<AttemptOutcome, { readonly kind: 'busy' }>

/** What to send, and how. */
export interface PostWebhookRequest {
  readonly guard: UrlGuard
  /** Whose turn the receiver's name lookup takes (the account); default the guard's own. */
  readonly asker?: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** The whole attempt, connect to last byte read, must finish within this many ms. */
  readonly timeoutMs: number
  /** Aborts the attempt (burrowd is stopping); the outcome is then `failed` with `signal.reason`. */
  readonly signal?: AbortSignal
  /** The attempt's time, for an HTTP-date `Retry-After`. */
  readonly now: Date
}

/** Bytes of a non-2xx answer kept for the delivery log. */
const SNIPPET_BYTES = 512
/** Characters of it shown. */
const SNIPPET_CHARS = 200

/** POST one attempt and classify the result. Never throws. */
export async function postWebhook(req: PostWebhookRequest): Promise<AttemptOutcome> {
  let hostname: string
  try {
    hostname = new URL(req.url).hostname
  } catch {
    return failed(null, `"${req.url}" is not a URL`)
  }
  const refusal = req.guard.literalRefusal(hostname)
  if (refusal !== null) return failed(null, refusal)
  const own = req.asker === undefined ? undefined : req.guard.dispatcherFor(req.asker)
  try {
    return await send(req, hostname, own ?? req.guard.dispatcher)
  } finally {
    // Everything of the answer was read or dropped: nothing of it is waited for.
    await own?.destroy().catch(() => {})
  }
}

async function send(
  req: PostWebhookRequest,
  hostname: string,
  dispatcher: Dispatcher,
): Promise<AttemptOutcome> {
  const timeout = AbortSignal.timeout(req.timeoutMs)
  const interim = informationalLimit()
  const signal = AbortSignal.any([timeout, interim.signal, ...(req.signal ? [req.signal] : [])])
  try {
    const response = await request(req.url, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
      dispatcher,
      signal,
      onInfo: interim.onInfo,
    })
    const status = response.statusCode
    if (status >= 200 && status < 300) {
      // The status is the answer; a body that then fails to arrive does not undo it.
      await response.body.dump({ limit: SNIPPET_BYTES }).catch(() => {})
      return { kind: 'delivered', status }
    }
    const snippet = await readSnippet(response.body).catch(() => '')
    if (status === 410) return { kind: 'gone', status, error: describeStatus(status, snippet) }
    const retryAfter =
      status === 429 || status === 503
        ? parseRetryAfter(header(response.headers['retry-after']), req.now)
        : null
    return failed(status, describeStatus(status, snippet), retryAfter)
  } catch (error) {
    if (timeout.aborted) return failed(null, `no answer within ${req.timeoutMs / 1000} s`)
    if (interim.signal.aborted) return failed(null, (interim.signal.reason as Error).message)
    if (req.signal?.aborted) return failedWith(deliveryError(req.signal.reason, hostname))
    const first: unknown = error instanceof AggregateError ? error.errors[0] : error
    if (first instanceof LookupBusyError) return { kind: 'busy', error: first.message }
    return failedWith(deliveryError(error, hostname))
  }
}

function failed(status: number | null, error: string, retryAfterMs: number | null = null) {
  return { kind: 'failed', status, error, retryAfterMs } as const
}

function failedWith({ error, detail }: DeliveryError) {
  return { kind: 'failed', status: null, error, retryAfterMs: null, detail } as const
}

function describeStatus(status: number, snippet: string): string {
  const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : ''
  return `HTTP ${status}${redirect}${snippet === '' ? '' : `: ${snippet}`}`
}

/** The start of a response body as one printable line. */
async function readSnippet(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk)
    size += chunk.length
    if (size >= SNIPPET_BYTES) break
  }
  // Breaking out of the loop destroys the body; the rest of it is never read.
  const text = Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString('utf8')
  const line = text
    .replace(/[\p{Cc}\p{Cf}\uFFFD]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return line.length > SNIPPET_CHARS ? `${line.slice(0, SNIPPET_CHARS)}…` : line
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
