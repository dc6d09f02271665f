/**
 * A local Streamable HTTP MCP server on 127.0.0.1 (port 0) that answers `initialize`, the
 * notifications (202) and `tools/list` as it should, and each `tools/call` as the tool's name
 * says, most of them wrongly: 202, an empty 200, a 200 holding no answer, a redirect (to another
 * server, or to a path of its own that would answer), an SSE stream that ends or breaks without
 * the answer, one that ends after a priming event and gives the answer to the agent's resume
 * (`GET` with `Last-Event-ID`), as the spec allows, or one whose every resumed stream ends at once
 * with a new id and `retry: 0` (a client that resumes without a bound spins). A second server
 * stands for "another host" and counts what reaches it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** The tools, by what their call gets. */
export const MISBEHAVIOURS = [
  'ok',
  'accepted',
  'accepted-json',
  'empty-json',
  'empty',
  'no-answer-json',
  'redirect-away',
  'redirect-here',
  'sse-empty',
  'sse-progress',
  'sse-broken',
  'sse-primed',
  'sse-primed-closing',
] as const

/** A tool of the server. */
export type Misbehaviour = (typeof MISBEHAVIOURS)[number]

/** A running server, and what reached it. */
export interface MisbehavingServer {
  /** Its MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string
  /** The URL its `redirect-away` sends to (another server). */
  readonly elsewhere: string
  /** Requests that reached the other server, or the path `redirect-here` sends to. */
  readonly followed: string[]
  /** `GET`s that resumed a stream (their `Last-Event-ID`). */
  readonly resumed: string[]
  /** Every `Last-Event-ID` a `GET` sent, resumed or refused. */
  readonly resumeAsks: string[]
  close(): Promise<void>
}

type Message = { id?: string | number; method?: string; params?: { name?: string } }

const SESSION = 'misbehaving-session'

/** Start the server and the "other host". */
export async function startMisbehavingServer(): Promise<MisbehavingServer> {
  const followed: string[] = []
  const resumed: string[] = []
  const resumeAsks: string[] = []
  /** Answers owed on resume, by the event id of the stream that ended. */
  const owed = new Map<string, Message['id']>()
  let streams = 0
  const other = await listen((req, res) => {
    followed.push(`${req.method} ${req.url}`)
    json(res, 200, { jsonrpc: '2.0', id: null, result: {} })
  })
  const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/mcp`

  const server = await listen((req, res, body) => {
    if (req.url?.startsWith('/moved')) {
      followed.push(`${req.method} ${req.url}`)
      const message = JSON.parse(body || '{}') as Message
      return json(res, 200, answer(message.id, 'followed'))
    }
    if (req.method === 'DELETE') return void res.writeHead(200).end()
    if (req.method === 'GET') {
      const last = req.headers['last-event-id']
      if (typeof last === 'string') resumeAsks.push(last)
      if (typeof last === 'string' && last.startsWith('closing-')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        return void res.end(`id: ${last}+\nretry: 0\ndata: \n\n`)
      }
      const id = typeof last === 'string' ? owed.get(last) : undefined
      if (typeof last !== 'string' || id === undefined) return void res.writeHead(405).end()
      resumed.push(last)
      owed.delete(last)
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      return void res.end(`data: ${JSON.stringify(answer(id, 'resumed'))}\n\n`)
    }
    const message = JSON.parse(body) as Message
    if (message.id === undefined) return void res.writeHead(202).end()
    if (message.method === 'initialize') {
      const result = {
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'misbehaving', version: '1' },
      }
      return json(res, 200, { jsonrpc: '2.0', id: message.id, result }, SESSION)
    }
    if (message.method === 'tools/list') {
      const tools = MISBEHAVIOURS.map((name) => ({ name, inputSchema: { type: 'object' } }))
      return json(res, 200, { jsonrpc: '2.0', id: message.id, result: { tools } })
    }
    if (message.method !== 'tools/call') {
      return json(res, 200, { jsonrpc: '2.0', id: message.id, result: {} })
    }
    const progress = `data: ${JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'error', data: { error: 'about to fail' } },
    })}\n\n`
    switch (message.params?.name as Misbehaviour) {
      case 'ok':
        return json(res, 200, answer(message.id, 'ok'))
      case 'accepted':
        return void res.writeHead(202).end()
      case 'accepted-json':
        return json(res, 202, answer(message.id, 'in a 202'))
      case 'empty-json':
        return void res.writeHead(200, { 'content-type': 'application/json' }).end()
      case 'empty':
        return void res.writeHead(200).end()
      case 'no-answer-json':
        return json(res, 200, { jsonrpc: '2.0', method: 'notifications/progress', params: {} })
      case 'redirect-away':
        return void res.writeHead(307, { location: otherUrl }).end()
      case 'redirect-here':
        return void res.writeHead(307, { location: '/moved' }).end()
      case 'sse-empty':
        return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end()
      case 'sse-progress':
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        return void res.end(progress)
      case 'sse-broken':
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        return void res.write(progress, () => res.socket?.destroy())
      case 'sse-primed': {
        const event = `s${++streams}`
        owed.set(event, message.id)
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        return void res.end(`id: ${event}\nretry: 10\ndata: \n\n`)
      }
      case 'sse-primed-closing':
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        return void res.end(`id: closing-${++streams}\nretry: 0\ndata: \n\n`)
      default:
        return json(res, 200, {
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32602, message: 'no such tool' },
        })
    }
  })
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    elsewhere: otherUrl,
    followed,
    resumed,
    resumeAsks,
    async close() {
      for (const s of [server, other]) {
        s.closeAllConnections()
        await new Promise((resolve) => s.close(resolve))
      }
    },
  }
}

function answer(id: Message['id'], text: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } }
}

function json(res: ServerResponse, status: number, body: unknown, session?: string): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (session !== undefined) headers['mcp-session-id'] = session
  res.writeHead(status, headers).end(JSON.stringify(body))
}

async function listen(
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<Server> {
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => handle(req, res, body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}
