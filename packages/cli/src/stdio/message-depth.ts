/**
 * How deep a server's message may nest for `burrow up` to forward it. `burrow up` writes every
 * message anew for the agent (ids rewritten), and V8's `JSON.stringify` recurses: a 20 KB line of
 * 5,000 brackets, which `JSON.parse` reads without trouble, overflows the stack when written, and
 * a local server could so throw out of the output reader and end `burrow up`. An answer nested
 * deeper than the bound becomes an error for its id, for the agent; a request so nested is answered
 * to the server with an error for its id (it would otherwise wait for an answer that never comes);
 * notifications are skipped.
 */
import {
  errorResponse,
  JSONRPC_CODE,
  type ClassifiedMessage,
  type JsonRpcMessage,
} from '@burrow/protocol'

/** Deepest nesting of arrays and objects forwarded, the message itself included. */
export const MAX_MESSAGE_DEPTH = 1_000

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d

/**
 * True when JSON `text` nests arrays and objects deeper than `limit` (strings skipped). Every long
 * line a server writes goes through it: strings, most of a big answer, are skipped by `indexOf`
 * rather than read character by character.
 */
export function nestsDeeperThan(text: string, limit: number = MAX_MESSAGE_DEPTH): boolean {
  // Each level takes an opening and a closing character.
  if (text.length <= 2 * limit) return false
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) i = stringEnd(text, i)
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limit) return true
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--
  }
  return false
}

/**
 * What is forwarded in place of a message of a line nested too deep: an error for its id when it
 * is an answer, else nothing.
 */
export function tooDeepReplacement(message: ClassifiedMessage): JsonRpcMessage | null {
  if (message.kind !== 'response') return null
  const reason =
    `the server's answer nests arrays and objects deeper than ${MAX_MESSAGE_DEPTH} levels; ` +
    'burrow does not forward it'
  return errorResponse(message.id, JSONRPC_CODE.internalError, reason)
}

/**
 * What `burrow up` answers the server itself in place of forwarding a request of a line nested too
 * deep: an error for its id; null for messages that are not requests.
 */
export function tooDeepRequestReply(message: ClassifiedMessage): JsonRpcMessage | null {
  if (message.kind !== 'request') return null
  const reason =
    `the request nests arrays and objects deeper than ${MAX_MESSAGE_DEPTH} levels; ` +
    'burrow does not forward it to the agent'
  return errorResponse(message.id, JSONRPC_CODE.invalidRequest, reason)
}

/** Index of the quote that closes the string opened at `start` (or the text's end). */
function stringEnd(text: string, start: number): number {
  let at = start
  for (;;) {
    at = text.indexOf('"', at + 1)
    if (at === -1) return text.length
    // Escaped when an odd run of backslashes precedes it.
    let before = at - 1
    while (text.charCodeAt(before) === BACKSLASH) before--
    if ((at - 1 - before) % 2 === 0) return at
  }
}
