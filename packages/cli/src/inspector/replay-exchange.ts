/**
 * Replay: sends a recorded request again, straight to the local handler (the HTTP relay or the
 * MCP front; not through the tunnel or the tap), and captures the new response for display beside
 * the original. The session header is sent as captured, so calls inside a session work while it
 * lives; when the server answers 404 because that session has ended, the replayer opens a new one
 * (with the session's recorded `initialize` when it has it) and sends the call there, reusing it
 * for later replays from the same session. JSON-RPC request ids are replaced by fresh ones,
 * because MCP forbids reusing an id within a session and a server would otherwise confuse the
 * replay with the agent's own call.
 */
import type { LocalRequest, LocalResponse, RequestHandler } from '../relay/local-exchange.js'
import type { CapturedBody } from './captured-body.js'
import { withFreshIds } from './fresh-ids.js'
import { openSession, type Sent } from './replay-session.js'
import { ResponseCapture, type CapturedMessage, type ResponseKind } from './response-capture.js'
import type { TrafficRecorder } from './traffic-recorder.js'

/** The outcome of one replay. */
export interface ReplayResult {
  readonly exchangeId: number
  /** Wall-clock start, epoch milliseconds. */
  readonly startedAt: number
  /** The JSON-RPC id sent in place of the original (first one, in a batch); null if none. */
  readonly sentId: string | null
  /** Null when no response head came (the handler failed, or the wait timed out). */
  readonly status: number | null
  readonly headers: Readonly<Record<string, string>>
  readonly kind: ResponseKind
  readonly body: CapturedBody | null
  readonly messages: readonly CapturedMessage[]
  readonly messagesTruncated: boolean
  readonly rpcError: boolean
  readonly latencyMs: number | null
  readonly durationMs: number
  /** What went wrong, if anything. */
  readonly error: string | null
  /** What the replay did beyond sending the call again (it opened a new session), if anything. */
  readonly note: string | null
}

/** Why a replay was not attempted. */
export class ReplayError extends Error {
  readonly code: 'not_found' | 'not_replayable'
  constructor(code: 'not_found' | 'not_replayable', message: string) {
    super(message)
    this.name = 'ReplayError'
    this.code = code
  }
}

/** Options of `createReplayer`. */
export interface ReplayerOptions {
  readonly recorder: TrafficRecorder
  /** The current inner handler (a getter: `up` may rebuild it when the layout changes). */
  readonly handler: () => RequestHandler
  /** How long to wait for the whole response; default 30 s. */
  readonly timeoutMs?: number
  readonly maxBodyBytes?: number
  readonly clock?: () => number
}

/** A function that replays a recorded exchange by id. Throws ReplayError when it cannot. */
export function createReplayer(options: ReplayerOptions): (id: number) => Promise<ReplayResult> {
  const clock = options.clock ?? Date.now
  const timeoutMs = options.timeoutMs ?? 30_000
  /** Sessions that ended → the session opened in their place for replays. */
  const renewed = new Map<string, string>()
  let count = 0

  const send = async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body: Uint8Array,
  ): Promise<Sent> => {
    const abort = new AbortController()
    const request: LocalRequest = { method, path, headers, body, signal: abort.signal }
    const startedAt = clock()
    const capture = new ResponseCapture({ maxBodyBytes: options.maxBodyBytes, startedAt, clock })
    const { response, ended } = capturingResponse(capture)
    let error: string | null = null
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs)
    })
    try {
      const handled = options
        .handler()
        .handle(request, response)
        .then(() => ended)
      if ((await Promise.race([handled, timedOut])) === 'timeout') {
        error = `no complete response within ${Math.round(timeoutMs / 1000)} s; stopped waiting`
      }
    } catch (err) {
      error = err instanceof Error ? err.message : String(err)
    } finally {
      clearTimeout(timer)
      // Stops a stream still open (the handler sees the "agent" hang up).
      abort.abort()
    }
    capture.end()
    return { capture, error }
  }

  return async (id) => {
    const recording = options.recorder.get(id)
    if (!recording) throw new ReplayError('not_found', `exchange ${id} is no longer recorded`)
    const recorded = recording.request()
    if (!recorded) {
      throw new ReplayError(
        'not_replayable',
        'only POST requests whose whole body was recorded can be replayed',
      )
    }
    count++
    const base = `burrow-replay-${count}`
    const { body, sentId, initialize } = withFreshIds(recorded.body, base)
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(recorded.headers))
      if (name !== 'content-length') headers[name] = value
    const ended = headers['mcp-session-id']
    if (ended !== undefined && renewed.has(ended)) headers['mcp-session-id'] = renewed.get(ended)!
    const startedAt = clock()
    let sent = await send(recorded.method, recorded.path, headers, body)
    let note: string | null = null
    if (sent.capture.status === 404 && ended !== undefined && !initialize) {
      // The call's session is gone (the agent ended it, or the server restarted): open one
      // like it and send the call there, rather than show a bare 404.
      const opened = await openSession(send, options.recorder, ended, headers, base)
      if (typeof opened === 'string') {
        sent = {
          ...sent,
          error:
            `session ${ended} has ended (the server answered 404) and no new session could be ` +
            `opened (${opened}); replay the agent's initialize, or call again from the agent`,
        }
      } else {
        renewed.set(ended, opened.sessionId)
        sent = await send(
          recorded.method,
          recorded.path,
          { ...headers, 'mcp-session-id': opened.sessionId },
          body,
        )
        note =
          `session ${ended} had ended (the server answered 404), so this call was sent in a new ` +
          `session, ${opened.sessionId}, opened with ${opened.with}`
      }
    }
    const { capture, error } = sent
    return {
      exchangeId: id,
      startedAt,
      sentId,
      status: capture.status,
      headers: capture.headers,
      kind: capture.kind,
      body: capture.body,
      messages: capture.messages,
      messagesTruncated: capture.messagesTruncated,
      rpcError: capture.rpcError,
      latencyMs: capture.headAfterMs,
      durationMs: clock() - startedAt,
      error,
      note,
    }
  }
}

/** A LocalResponse that only records; `ended` resolves when the body ends or is destroyed. */
function capturingResponse(capture: ResponseCapture): {
  response: LocalResponse
  ended: Promise<void>
} {
  let closed = false
  let resolveEnded!: () => void
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve))
  const response: LocalResponse = {
    writeHead: (status, headers) => capture.head(status, headers),
    write: (chunk) => {
      if (!closed) capture.chunk(chunk)
      return true
    },
    end: () => {
      closed = true
      resolveEnded()
    },
    onDrain: () => {},
    get closed() {
      return closed
    },
    destroy: () => {
      closed = true
      resolveEnded()
    },
  }
  return { response, ended }
}
