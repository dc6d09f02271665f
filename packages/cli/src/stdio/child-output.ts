/**
 * Reads a stdio MCP server's output: stdout as newline-delimited JSON-RPC (one message, or a
 * batch, per line, as the MCP stdio transport defines it; read with `parseJsonRpcText`) and
 * stderr as log lines. Neither is trusted: lines that are not JSON-RPC, and invalid messages, are
 * reported and skipped, a single line is bounded (an answer over the bound becomes an error for
 * its request, its id read as the line passes, `batch-answer-ids.ts`, or from its ends when it is
 * not JSON, `cut-answer.ts`; so does each answer of a batch over it, while each request of the
 * server's own in such a line is answered to it with an error),
 * and a line nested too deep to write again is skipped, its
 * answers becoming errors for the agent and its requests errors for the server
 * (`message-depth.ts`).
 */
import type { ChildProcess } from 'node:child_process'
import {
  isBodyProblem,
  jsonRpcMessageOf,
  parseJsonRpcText,
  type JsonRpcId,
  type JsonRpcMessage,
} from '@burrow/protocol'
import { cutText } from '../cut-text.js'
import {
  BatchAnswerIds,
  MAX_CUT_BATCH_IDS,
  MAX_CUT_ID_BYTES,
  type BatchAnswers,
} from './batch-answer-ids.js'
import { cutAnswerError, cutAnswerId, cutRequestReply } from './cut-answer.js'
import { LineSplitter, type LineEnds } from './line-splitter.js'
import { nestsDeeperThan, tooDeepReplacement, tooDeepRequestReply } from './message-depth.js'
import { invalidAnswerReplacement } from './invalid-answer.js'

/** Where `readChildOutput` reports what it reads. */
export interface ChildOutputHandlers {
  /** A valid JSON-RPC message read from stdout. */
  readonly onMessage: (message: JsonRpcMessage) => void
  /** A non-empty stderr line. */
  readonly onStderrLine: (line: string) => void
  /** Output that was skipped, described for the log, with how loudly to say it. */
  readonly onSkipped: (description: string, level: 'warn' | 'debug') => void
  /** An answer for the server itself, to a request of its own that is not forwarded. */
  readonly onReply?: (answer: JsonRpcMessage) => void
}

// stderr is only logged, so its lines get a far smaller bound than messages.
const MAX_STDERR_LINE_BYTES = 64 * 1024

/** Start reading `child`'s stdout and stderr. */
export function readChildOutput(
  child: ChildProcess,
  maxLineBytes: number,
  handlers: ChildOutputHandlers,
): void {
  // The answers of the line being dropped, read as it passes.
  let batch: BatchAnswerIds | undefined
  const stdout = new LineSplitter(
    maxLineBytes,
    (line) => onStdoutLine(line, handlers),
    (bytes, ends) => {
      let dropped = `dropped a stdout line of ${bytes} bytes (limit ${maxLineBytes})`
      // The requests it answered get an error each rather than no answer, and so do the server's
      // own requests in it.
      const found = batch?.finish() ?? null
      batch = undefined
      const replies = found?.json === true ? found.requests : []
      if (replies.length > 0 || (found?.requestsLeft ?? 0) > 0) {
        dropped += `, ${requestsSaid(found!)}`
      }
      if (found === null || !found.batch) {
        handlers.onSkipped(dropped, 'warn')
        const id = singleAnswerId(found, ends)
        if (id !== undefined) handlers.onMessage(cutAnswerError(id, bytes, maxLineBytes))
      } else {
        const left =
          found.left === 0
            ? ''
            : `; ${counted(found.left, 'more answer')} not read (at most ${MAX_CUT_BATCH_IDS} ids, ` +
              `of ${MAX_CUT_ID_BYTES} bytes each), their requests get no answer`
        const what = found.json
          ? `a batch of ${counted(found.ids.length, 'answer')}${left}`
          : 'a batch that is not JSON, no answers read'
        handlers.onSkipped(`${dropped}, ${what}`, 'warn')
        for (const id of found.ids) handlers.onMessage(cutAnswerError(id, bytes, maxLineBytes))
      }
      for (const id of replies) handlers.onReply?.(cutRequestReply(id, bytes, maxLineBytes))
    },
    (part) => (batch ??= new BatchAnswerIds()).push(part),
  )
  const stderr = new LineSplitter(
    MAX_STDERR_LINE_BYTES,
    (line) => {
      if (line.trim() !== '') handlers.onStderrLine(line)
    },
    (bytes) => handlers.onSkipped(`dropped a stderr line of ${bytes} bytes`, 'debug'),
  )
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk))
  child.stdout?.on('end', () => stdout.end())
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk))
  child.stderr?.on('end', () => stderr.end())
}

/**
 * The id of the answer a dropped line that is no batch held: as the scan read it when the line is
 * JSON (the message's own `id`, the last when repeated, as `JSON.parse` reads it, wherever it
 * stands; none when the message is not an answer), else from the line's ends (`cut-answer.ts`),
 * so that an answer cut mid-line still becomes an error. An id too long for the scan to keep is
 * also read from the ends.
 */
function singleAnswerId(found: BatchAnswers | null, ends: LineEnds): JsonRpcId | undefined {
  if (found === null || !found.json || found.left > 0) return cutAnswerId(ends)
  return found.ids[0]
}

/** What the log says of the server's own requests in a dropped line. */
function requestsSaid(found: BatchAnswers): string {
  const left =
    found.requestsLeft === 0
      ? ''
      : `; ${counted(found.requestsLeft, 'more request')} not read, the server gets no answer for them`
  return `${counted(found.requests.length, 'request')} of the server answered with an error${left}`
}

/** `n` and `noun`, plural past one, e.g. "1 request", "2 requests". */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

function onStdoutLine(line: string, handlers: ChildOutputHandlers): void {
  if (line.trim() === '') return
  const shown = (): string => cutText(line, 200)
  const read = parseJsonRpcText(line)
  if (isBodyProblem(read)) {
    const what = read.policy === 'parse_error' ? 'not JSON' : `not JSON-RPC (${read.reason})`
    handlers.onSkipped(`skipped a stdout line that is ${what}: ${shown()}`, 'warn')
    return
  }
  if (nestsDeeperThan(line)) {
    handlers.onSkipped(`skipped a stdout line nested too deep to forward: ${shown()}`, 'warn')
    for (const classified of read.messages) {
      const replacement = tooDeepReplacement(classified)
      if (replacement !== null) handlers.onMessage(replacement)
      const reply = tooDeepRequestReply(classified)
      if (reply !== null) handlers.onReply?.(reply)
    }
    return
  }
  for (const classified of read.messages) {
    const message = jsonRpcMessageOf(classified)
    if (message !== null) handlers.onMessage(message)
    else if (classified.kind === 'invalid') {
      const why = `an invalid JSON-RPC message (${classified.problem})`
      handlers.onSkipped(`skipped ${why} on stdout: ${shown()}`, 'warn')
      const replacement = invalidAnswerReplacement(classified)
      if (replacement !== null) handlers.onMessage(replacement)
    }
  }
}
