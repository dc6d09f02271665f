/**
 * What a `ResponseMessages` is told to do with a response's messages (response-messages.ts):
 * tap them, rewrite them, cut the answer at one that may not reach the agent, and where the
 * copies it keeps are counted.
 */
import type { ClassifiedMessage } from './classify-message.js'
import type { ResponseKind } from './response-kind.js'

/** Options of `new ResponseMessages`. */
export interface ResponseMessagesOptions {
  readonly kind: ResponseKind
  /**
   * A replacement for `message` (any JSON value but null: a message that is not one may be
   * replaced by a masked string), or null to keep it as it came.
   */
  readonly rewrite?: ((message: ClassifiedMessage) => unknown) | null
  /** Told of every message, before its rewrite is asked for (it sees the original). */
  readonly onMessage?: (message: ClassifiedMessage) => void
  /**
   * With `rewrite`: a replacement for a body or an SSE event that is not JSON-RPC (text the
   * agent may still show), or null to keep it as it came.
   */
  readonly rewriteText?: ((text: string) => string | null) | null
  /**
   * What the rewrites follow now, for a stream whose policy may change while it is open (a GET
   * stream): a rewrite kept for a carried-over SSE id is made again when this changes.
   */
  readonly shapedBy?: () => unknown
  /** Told of each answer the agent gets an error in place of (it could not be written back). */
  readonly onWithheld?: (message: ClassifiedMessage) => void
  /** Largest JSON body read whole, in bytes (default 16 MiB). */
  readonly maxJsonBytes?: number
  /** Where the bytes of the copy are counted; none: only the bounds of one response apply. */
  readonly held?: HeldCopies | null
  /** Told when some of the messages could not be tapped (the copy was too large or refused). */
  readonly onCut?: () => void
  /**
   * Whether an answer whose messages cannot be read (compressed, or of another content type) may
   * not pass: by default when messages are rewritten; true when something watches it though
   * nothing rewrites it (rug-pull protection); false when it may go on as it came (an answer to
   * notifications only, which answers nothing).
   */
  readonly mustRead?: boolean
  /**
   * True for a message that may never reach the agent (an answer to a listing the request did
   * not make): the answer is `cut` where it stands, before the bytes that would complete that
   * message reach the agent. A JSON body only tapped then holds back its last chunk (with any
   * chunks of whitespace only after it) until it has been read whole.
   */
  readonly cutsOn?: ((message: ClassifiedMessage) => boolean) | null
  /**
   * With `cutsOn`: true when what the copy could not read (past a bound) may not pass now (a
   * listing is pending, so it could be one). An answer only tapped is then cut where such bytes
   * would complete a message: a JSON body past its bound at its end, which it holds back for
   * that; an SSE stream at a chunk the tap could not read.
   */
  readonly cutsUnread?: (() => boolean) | null
}

/** A bound on the bytes responses' copies hold at once (SSE: counted in characters). */
export interface HeldCopies {
  /** Count `bytes` more; false, counting nothing, when the bound would be passed. */
  take(bytes: number): boolean
  /** `bytes` counted before are no longer held. */
  give(bytes: number): void
}
