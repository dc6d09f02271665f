/** What the agent gets in place of messages a rewrite changed but could not write back. */
import type { ClassifiedMessage } from './classify-message.js'
import { JSONRPC_CODE } from './json-rpc-codes.js'
import { errorResponse } from './json-rpc.js'

/** Said in place of an answer the rewrite could not write back. */
export const UNWRITABLE_ANSWER =
  "the local server's answer nests too deeply to be checked against the tunnel's policy; it was not forwarded"

/**
 * The text sent instead of `messages` that could not be written back after a rewrite: an error
 * for each answer (a batch stays a batch), or nothing when none of them is an answer.
 */
export function unwritable(messages: readonly ClassifiedMessage[], batch: boolean): string {
  const errors = messages
    .filter((m) => m.kind === 'response')
    .map((m) => errorResponse(m.id, JSONRPC_CODE.internalError, UNWRITABLE_ANSWER))
  if (errors.length === 0) return ''
  return JSON.stringify(batch ? errors : errors[0])
}
