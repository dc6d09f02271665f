/**
 * Resuming an HTTP upstream's SSE stream that ended before it carried the answer to its request,
 * as MCP lets a server do (2025-11-25, SSE polling): after an event with an id (the priming
 * event), the server may close the stream, and the client asks again with `GET` and
 * `Last-Event-ID`, after the `retry` the server gave; the answer comes on the resumed stream,
 * which may itself end and be resumed again. The official SDK client does it with no bound on a
 * server that keeps closing streams it accepts, and waits whatever `retry` says. Here each
 * request's resumption is bounded (`ResumeLimits`): the wait, the resumptions, the failed attempts
 * in a row and the time since the stream first ended. A request it cannot resume fails, saying
 * why.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { Dispatcher } from 'undici'
import { describeError, isStream, type SseCursor } from './http-response.js'

type Response = Dispatcher.ResponseData

/** The bounds of one request's resumption. */
export interface ResumeLimits {
  /** Resuming GETs sent, successful or not. */
  readonly maxResumes: number
  /** Failed GETs in a row (409, 429, 5xx, or unreachable) before giving up. */
  readonly maxFailures: number
  /** No resumption starts later than this after the stream first ended (ms). */
  readonly maxSpanMs: number
  /** Least wait before a resumption, whatever `retry` says (ms). */
  readonly minDelayMs: number
  /** Longest wait before a resumption, whatever `retry` says (ms). */
  readonly maxDelayMs: number
  /** Wait when the server gave no `retry` (ms). */
  readonly defaultDelayMs: number
}

/**
 * The defaults: the SDK's wait without `retry` (1 s, growing 1.5 times per failure to 30 s) and
 * its three attempts; a server that closes every stream at once (`retry: 0`) is asked at most ten
 * times a second, and a hundred times in all; nothing resumes ten minutes after the first end.
 */
export const RESUME_LIMITS: ResumeLimits = {
  maxResumes: 100,
  maxFailures: 3,
  maxSpanMs: 10 * 60_000,
  minDelayMs: 100,
  maxDelayMs: 30_000,
  defaultDelayMs: 1_000,
}

/** The wait before the next resumption: `retry`, or the default, grown after failures. */
export function resumeDelay(retryMs: number | null, failures: number, limits: ResumeLimits) {
  const base = retryMs ?? limits.defaultDelayMs
  const grown = base * 1.5 ** failures
  return Math.min(Math.max(grown, limits.minDelayMs), limits.maxDelayMs)
}

/** True for a refusal worth asking again: the server may be busy, restarting or behind. */
export function isPassingRefusal(status: number): boolean {
  return status === 409 || status === 429 || status >= 500
}

/** What resuming a stream needs of the channel. */
export interface StreamResumer {
  /** `GET` under the session with `Last-Event-ID: lastEventId`. */
  readonly open: (lastEventId: string, signal: AbortSignal) => Promise<Response>
  /** Read a resumed stream's events into `cursor`. */
  readonly read: (response: Response, cursor: SseCursor) => Promise<unknown>
  /**
   * Read a refusal (its body quoted), losing the session if it is gone; resolves with what to
   * quote of it.
   */
  readonly refused: (response: Response) => Promise<string>
  /** True once nothing waits any more: answered, aborted, session lost, channel closed. */
  readonly over: () => boolean
}

/**
 * Resume the stream from `cursor` until `resumer.over()`; resolves with why it gave up, or null
 * when it need not tell (the request was answered or nobody waits).
 */
export async function resumeStream(
  resumer: StreamResumer,
  cursor: SseCursor,
  signal: AbortSignal,
  limits: ResumeLimits = RESUME_LIMITS,
): Promise<string | null> {
  const started = Date.now()
  let resumes = 0
  let failures = 0
  let failure = ''
  for (;;) {
    if (resumer.over() || signal.aborted) return null
    const lastEventId = cursor.lastEventId
    if (lastEventId === null) return 'no event id to resume it from'
    if (failures >= limits.maxFailures) {
      return `resuming it failed ${failures} times in a row (${failure})`
    }
    if (resumes >= limits.maxResumes) {
      return `burrow stopped resuming it after ${resumes} attempts (the bound)`
    }
    const delay = resumeDelay(cursor.retryMs, failures, limits)
    if (Date.now() + delay - started > limits.maxSpanMs) {
      return `burrow stopped resuming it ${limits.maxSpanMs / 1000} s after it first ended (the bound)`
    }
    try {
      await sleep(delay, undefined, { signal })
    } catch {
      return null
    }
    resumes += 1
    // A resumed stream that stays open without the answer (a server that ignores
    // `Last-Event-ID` and streams on) is closed when the span ends, like one that keeps closing.
    const spanLeftMs = Math.max(1, started + limits.maxSpanMs - Date.now())
    const attempt = AbortSignal.any([signal, AbortSignal.timeout(spanLeftMs)])
    let response: Response
    try {
      response = await resumer.open(lastEventId, attempt)
    } catch (err) {
      if (signal.aborted) return null
      failures += 1
      failure = describeError(err)
      continue
    }
    if (isStream(response)) {
      failures = 0
      await resumer.read(response, cursor)
      continue
    }
    const status = response.statusCode
    const quoted = await resumer.refused(response)
    if (resumer.over()) return null
    const refusal = `HTTP ${status}${quoted ? `: ${quoted}` : ''}`
    if (status < 300) return `resuming it (GET with Last-Event-ID) got no event stream (${refusal})`
    if (!isPassingRefusal(status)) {
      return `resuming it (GET with Last-Event-ID) was refused (${refusal})`
    }
    failures += 1
    failure = refusal
  }
}
