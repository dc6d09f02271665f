/**
 * The POSTs an HTTP upstream channel has open, indexed so that those nobody waits for any more
 * are dropped: a request's once it is cancelled (`notifications/cancelled` naming it: the agent
 * gave up or hung up, a timeout, an eviction), a notification's or answer's (which a server owes
 * only `202`) once it is the oldest of more than `MAX_UNANSWERED_POSTS`. Found by hostile review:
 * a server that never answered kept each such POST open for ever, a connection each, so calls
 * that timed out piled up connections until `burrow up` ran out of file descriptors.
 */
import { idKey, isRequest, type JsonRpcMessage } from '@burrow/protocol'

/** POSTs of notifications and answers kept waiting at once; past this, the oldest is dropped. */
export const MAX_UNANSWERED_POSTS = 32

/** The reason a POST was dropped by the channel itself: not the server's failure. */
export const DROPPED = new Error('dropped by the aggregator: nobody waits for its answer')

/** True when `abort` was aborted by the tracker, not by a failure. */
export function wasDropped(abort: AbortController): boolean {
  return abort.signal.reason === DROPPED
}

/** The open POSTs of one channel. */
export class PostTracker {
  /** Each request's POST, by `idKey` of its id. */
  readonly #requests = new Map<string, AbortController>()
  readonly #keys = new WeakMap<AbortController, string>()
  /** The POSTs of notifications and answers, oldest first. */
  readonly #unanswered = new Set<AbortController>()

  /** Index the POST of `message`, aborted through `abort`; drop what `message` makes idle. */
  track(message: JsonRpcMessage, abort: AbortController): void {
    if ('method' in message && message.method === 'notifications/cancelled') {
      const id = message.params?.requestId
      if (typeof id === 'string' || typeof id === 'number') {
        this.#requests.get(idKey(id))?.abort(DROPPED)
      }
    }
    if (isRequest(message)) {
      const key = idKey(message.id)
      this.#requests.set(key, abort)
      this.#keys.set(abort, key)
      return
    }
    this.#unanswered.add(abort)
    if (this.#unanswered.size > MAX_UNANSWERED_POSTS) {
      const oldest = this.#unanswered.values().next().value!
      this.#unanswered.delete(oldest)
      oldest.abort(DROPPED)
    }
  }

  /** The POST of `abort` is over. */
  forget(abort: AbortController): void {
    this.#unanswered.delete(abort)
    const key = this.#keys.get(abort)
    if (key !== undefined && this.#requests.get(key) === abort) this.#requests.delete(key)
  }

  /** Forget every POST (the channel aborted them all). */
  clear(): void {
    this.#requests.clear()
    this.#unanswered.clear()
  }
}
