/**
 * A bare Streamable HTTP client for tests that must see the wire itself (statuses, headers, SSE
 * event ids, keep-alive comments), which the SDK client hides.
 */

/** The Accept header the MCP spec requires on POST. */
export const ACCEPT_BOTH = 'application/json, text/event-stream'

/** POST a JSON-RPC body (a value to serialise, or raw text) with MCP headers. */
export async function post(
  url: URL,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  })
}

/** A session opened with a raw initialize. */
export interface RawSession {
  readonly sessionId: string
  readonly result: Record<string, unknown>
  /** POST with this session's id header. */
  post(body: unknown, signal?: AbortSignal): Promise<Response>
}

/** An `initialize` request (id 0) from client `name`. */
export function initializeRequest(
  name: string,
  protocolVersion = '2025-11-25',
  capabilities: Record<string, unknown> = {},
): Record<string, unknown> {
  const clientInfo = { name, version: '1' }
  return {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities, clientInfo },
  }
}

/** Initialize a session (and send `notifications/initialized`, as clients do). */
export async function initialize(
  url: URL,
  protocolVersion = '2025-11-25',
  capabilities: Record<string, unknown> = {},
): Promise<RawSession> {
  const res = await post(url, initializeRequest('raw', protocolVersion, capabilities))
  const sessionId = res.headers.get('mcp-session-id')
  const body = (await answerOf(res)) as { result?: Record<string, unknown> }
  if (res.status !== 200 || !sessionId || !body.result) {
    throw new Error(`initialize failed: ${res.status} ${JSON.stringify(body)}`)
  }
  const session: RawSession = {
    sessionId,
    result: body.result,
    post: (message, signal) => post(url, message, { 'mcp-session-id': sessionId }, signal),
  }
  const ack = await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' })
  await ack.body?.cancel()
  return session
}

/** One Server-Sent Event. */
export interface SseEvent {
  readonly id: string | undefined
  readonly event: string | undefined
  readonly data: string
}

/** Reads SSE events from a response as they arrive. */
export class SseReader {
  /** Comment lines seen so far, without the leading colon. */
  readonly comments: string[] = []
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>
  readonly #decoder = new TextDecoder()
  #buffer = ''
  #events: SseEvent[] = []
  #done = false

  constructor(res: Response) {
    if (!res.body) throw new Error('response has no body')
    this.#reader = res.body.getReader()
  }

  /** The next event, or null when the stream ended. Fails after `timeoutMs`. */
  async next(timeoutMs = 5_000): Promise<SseEvent | null> {
    const deadline = Date.now() + timeoutMs
    while (this.#events.length === 0 && !this.#done) {
      const left = deadline - Date.now()
      if (left <= 0) throw new Error('no SSE event in time')
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no SSE event in time')), left)
      })
      try {
        const { value, done } = await Promise.race([this.#reader.read(), timeout])
        if (done) this.#done = true
        else this.#feed(this.#decoder.decode(value, { stream: true }))
      } finally {
        clearTimeout(timer)
      }
    }
    return this.#events.shift() ?? null
  }

  /** All remaining events until the stream ends. */
  async rest(timeoutMs = 5_000): Promise<SseEvent[]> {
    const events: SseEvent[] = []
    for (let e = await this.next(timeoutMs); e; e = await this.next(timeoutMs)) events.push(e)
    return events
  }

  /** Stop reading (closes the connection). */
  async cancel(): Promise<void> {
    await this.#reader.cancel()
  }

  #feed(text: string): void {
    this.#buffer += text
    let end = this.#buffer.indexOf('\n\n')
    while (end !== -1) {
      this.#block(this.#buffer.slice(0, end))
      this.#buffer = this.#buffer.slice(end + 2)
      end = this.#buffer.indexOf('\n\n')
    }
  }

  #block(block: string): void {
    let id: string | undefined
    let event: string | undefined
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.comments.push(line.slice(1).trim())
      else if (line.startsWith('id:')) id = line.slice(3).trim()
      else if (line.startsWith('event:')) event = line.slice(6).trim()
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
    }
    if (data.length > 0) this.#events.push({ id, event, data: data.join('\n') })
  }
}

/** Read `stream` until an event whose data contains `text` (a call's first progress, say). */
export async function untilEventWith(stream: SseReader, text: string): Promise<SseEvent> {
  for (;;) {
    const event = await stream.next()
    if (event === null) throw new Error(`the stream ended before an event with ${text}`)
    if (event.data.includes(text)) return event
  }
}

/** The JSON-RPC messages carried by `events`. */
export function messagesOf(events: readonly SseEvent[]): Record<string, unknown>[] {
  return events.map((e) => JSON.parse(e.data) as Record<string, unknown>)
}

/** The JSON-RPC answer in a POST response, whether it came as JSON or at the end of SSE. */
export async function answerOf(res: Response): Promise<Record<string, unknown>> {
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    return (await res.json()) as Record<string, unknown>
  }
  const messages = messagesOf(await new SseReader(res).rest())
  const answer = messages.find((m) => 'result' in m || 'error' in m)
  if (!answer) throw new Error(`no answer in the stream: ${JSON.stringify(messages)}`)
  return answer
}

/** Every JSON-RPC message of a POST response, whether it came as JSON or as SSE. */
export async function allMessagesOf(res: Response): Promise<Record<string, unknown>[]> {
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    return messagesOf(await new SseReader(res).rest())
  }
  return [(await res.json()) as Record<string, unknown>]
}

/** The `_meta` a 2026-07-28 request carries, declaring `capabilities`. */
export function modernMeta(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  }
}

/** POST one 2026-07-28 request with the headers it mirrors. */
export function sendModern(
  url: URL,
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  extra: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  const name = params.name ?? params.uri
  const headers: Record<string, string> = {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    ...extra,
  }
  const body = { jsonrpc: '2.0', id, method, params: { _meta: modernMeta(), ...params } }
  return post(url, body, headers, signal)
}
