/**
 * A small in-test MCP server as a RequestHandler, for the inspector's tests: sessions by
 * `mcp-session-id`, an `echo` tool answered as JSON (with a call counter, so a replay differs from
 * the original), a `stream` tool answered as SSE whose events a test can release one by one, and
 * a `fail` tool answered with a JSON-RPC error. It records the requests it saw.
 */
import type { LocalRequest, LocalResponse, RequestHandler } from '../../src/relay/local-exchange.js'

/** One request as the fake saw it. */
export interface SeenRequest {
  readonly method: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Record<string, unknown> | null
}

/** The fake and its controls. */
export interface FakeMcp extends RequestHandler {
  readonly seen: SeenRequest[]
  /** Resolves once the `stream` tool is waiting for `release()`. */
  waitingForRelease(): Promise<void>
  /** Let the `stream` tool send its next event. */
  release(): void
  /** Number of calls answered so far. */
  readonly calls: number
}

/** Options of `fakeMcp`. */
export interface FakeMcpOptions {
  /** When true, the `stream` tool waits for `release()` before each event. Default false. */
  readonly gated?: boolean
}

/** Create the fake. */
export function fakeMcp(options: FakeMcpOptions = {}): FakeMcp {
  const sessions = new Set<string>()
  const seen: SeenRequest[] = []
  let calls = 0
  const releases: (() => void)[] = []
  let waiters: (() => void)[] = []
  const gate = (): Promise<void> => {
    if (!options.gated) return new Promise((resolve) => setTimeout(resolve, 20))
    return new Promise((resolve) => {
      releases.push(resolve)
      for (const w of waiters) w()
      waiters = []
    })
  }
  const json = (res: LocalResponse, status: number, value: unknown, extra = {}): void => {
    const body = Buffer.from(JSON.stringify(value))
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': String(body.length),
      ...extra,
    })
    res.write(body)
    res.end()
  }
  const fake: FakeMcp = {
    seen,
    get calls() {
      return calls
    },
    waitingForRelease: () =>
      releases.length > 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve)),
    release() {
      const next = releases.shift()
      next?.()
    },
    async handle(req: LocalRequest, res: LocalResponse): Promise<void> {
      const text = Buffer.from(req.body).toString('utf8')
      const body = text === '' ? null : (JSON.parse(text) as Record<string, unknown>)
      seen.push({ method: req.method, headers: req.headers, body })
      if (req.method !== 'POST' || !body) {
        res.writeHead(405, {})
        res.end()
        return
      }
      const id = body.id
      if (body.method === 'initialize') {
        const session = `sess-${sessions.size + 1}`
        sessions.add(session)
        const result = {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'fake', version: '1' },
        }
        return json(res, 200, { jsonrpc: '2.0', id, result }, { 'mcp-session-id': session })
      }
      const session = req.headers['mcp-session-id']
      if (session === undefined || !sessions.has(session)) {
        const error = { code: -32001, message: 'Session not found' }
        return json(res, 404, { jsonrpc: '2.0', id: null, error })
      }
      if (id === undefined) {
        res.writeHead(202, {})
        res.end()
        return
      }
      const params = (body.params ?? {}) as { name?: string; arguments?: unknown }
      calls++
      if (body.method === 'tools/call' && params.name === 'stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
        for (let i = 1; i <= 2; i++) {
          await gate()
          const note = { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: i } }
          res.write(
            Buffer.from(`id: e${i}\r\nevent: message\r\ndata: ${JSON.stringify(note)}\r\n\r\n`),
          )
        }
        await gate()
        const result = { content: [{ type: 'text', text: 'streamed' }] }
        res.write(
          Buffer.from(`id: e3\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`),
        )
        res.end()
        return
      }
      if (body.method === 'tools/call' && params.name === 'fail') {
        const error = { code: -32602, message: 'no such tool: fail' }
        return json(res, 200, { jsonrpc: '2.0', id, error })
      }
      const result = {
        content: [{ type: 'text', text: JSON.stringify({ call: calls, args: params.arguments }) }],
      }
      return json(res, 200, { jsonrpc: '2.0', id, result })
    },
    async close() {},
  }
  return fake
}
