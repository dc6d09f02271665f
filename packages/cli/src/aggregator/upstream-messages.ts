/**
 * The JSON-RPC messages of an HTTP upstream's answer bodies, handed on one by one: a JSON body's
 * text, or each event of an SSE body. What is not JSON-RPC is skipped with a warning naming the
 * upstream.
 */
import type { Dispatcher } from 'undici'
import type { JsonRpcMessage } from '@burrow/protocol'
import type { Logger } from '../log/logger.js'
import {
  describeError,
  MAX_SSE_EVENT_CHARS,
  messagesIn,
  readSseData,
  type SseCursor,
} from './http-response.js'

/** Reads the bodies of one upstream. */
export class UpstreamMessages {
  readonly #logger: Logger
  readonly #name: string
  readonly #countIn: (bytes: number) => void

  constructor(logger: Logger, name: string, countIn: (bytes: number) => void) {
    this.#logger = logger
    this.#name = name
    this.#countIn = countIn
  }

  /**
   * Hand on the valid messages of JSON-RPC `text` (one, or a batch), skipping invalid ones with a
   * warning. Returns what is wrong when the text is not JSON-RPC at all, else null.
   */
  text(
    text: string,
    deliver: (message: JsonRpcMessage) => void,
  ): 'parse_error' | 'invalid_request' | null {
    const read = messagesIn(text)
    if (typeof read === 'string') return read
    for (const why of read.skipped) {
      this.#logger.warn(`[${this.#name}] invalid JSON-RPC message skipped: ${why}`)
    }
    for (const message of read.messages) deliver(message)
    return null
  }

  /**
   * Hand on the messages of an SSE body until it ends, its ids and `retry` kept in `cursor`;
   * resolves with the error that ended it, if any.
   */
  async sse(
    response: Dispatcher.ResponseData,
    deliver: (message: JsonRpcMessage) => void,
    cursor: SseCursor,
  ): Promise<string | undefined> {
    const log = this.#logger
    const name = this.#name
    try {
      await readSseData(response.body, {
        cursor,
        onData: (data, bytes) => {
          this.#countIn(bytes)
          const problem = this.text(data, deliver)
          if (problem === 'parse_error') log.warn(`[${name}] skipped an SSE event that is not JSON`)
          else if (problem !== null) log.warn(`[${name}] skipped an SSE event that is not JSON-RPC`)
        },
        onDropped: () =>
          log.warn(`[${name}] skipped an SSE event of more than ${MAX_SSE_EVENT_CHARS} characters`),
      })
      return undefined
    } catch (err) {
      return describeError(err)
    }
  }
}
