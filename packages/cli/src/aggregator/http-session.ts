/**
 * The aggregate's session at an HTTP upstream: the headers its POSTs carry, whether the server
 * still knows it, and ending it (DELETE).
 *
 * Whether the server still knows it is asked with a `ping` under it. A server answers a request for a session it forgot with 404 (MCP) or, some of them, 400 naming
 * the session; but a server may also refuse one agent's call with 400 and an error quoting the
 * call's input, which can name a session. Taken as the session's end, that made one agent's call
 * end every agent's calls at the server (found by a review). So before the session is dropped,
 * the server is asked; one ping at a time per session.
 */
import type { Dispatcher } from 'undici'
import { describeError, MAX_QUOTED_BODY_BYTES, readBodyText, sessionGone } from './http-response.js'

/** Headers of every POST to the upstream (the session's are added by the channel). */
export const POST_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
}

/** Sends one POST body under the current session. */
export type SessionPost = (body: string) => Promise<Dispatcher.ResponseData>

/** How long the ping may take; one that times out counts as a session gone. */
export const PROBE_TIMEOUT_MS = 10_000

/** Asks whether the session still lives; concurrent askers of one session share the answer. */
export class SessionProbe {
  readonly #post: SessionPost
  #asking: { readonly epoch: number; readonly known: Promise<boolean> } | undefined
  #pings = 0

  constructor(post: SessionPost) {
    this.#post = post
  }

  /** Whether the server still knows the session of `epoch` (a ping under it is not refused). */
  known(epoch: number): Promise<boolean> {
    if (this.#asking?.epoch === epoch) return this.#asking.known
    const asking = { epoch, known: this.#ping() }
    this.#asking = asking
    void asking.known.finally(() => {
      if (this.#asking === asking) this.#asking = undefined
    })
    return asking.known
  }

  async #ping(): Promise<boolean> {
    const id = `burrow-session-probe-${++this.#pings}`
    try {
      const response = await this.#post(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }))
      const { text } = await readBodyText(response.body, MAX_QUOTED_BODY_BYTES)
      return !sessionGone(response.statusCode, text.slice(0, 2048))
    } catch {
      // Unreachable, or no answer in time: the session is as good as gone.
      return false
    }
  }
}

/**
 * End the session at the server with `del` (a DELETE under it), waiting 2 s at most. Resolves
 * with why it failed, or null.
 */
export async function endSession(
  del: (signal: AbortSignal) => Promise<Dispatcher.ResponseData>,
): Promise<string | null> {
  try {
    const response = await del(AbortSignal.timeout(2_000))
    await response.body.dump()
    return null
  } catch (err) {
    return describeError(err)
  }
}
