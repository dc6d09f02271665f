/**
 * The inspector's traffic API, served to anyone holding the token:
 *
 *   GET  /api/traffic               kept exchanges (summaries), oldest first
 *   GET  /api/traffic/stream        live feed (see traffic-stream.ts)
 *   GET  /api/traffic/<id>          one exchange with headers and bodies
 *   POST /api/traffic/<id>/replay   send it again to the local upstream; returns the new result
 *   POST /api/traffic/clear         forget the kept exchanges
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '@burrow/protocol'
import { HttpProblem, readJsonBody, sendJson } from './inspector-http.js'
import { ReplayError, type ReplayResult } from './replay-exchange.js'
import type { TrafficRecorder } from './traffic-recorder.js'
import { serveTrafficStream } from './traffic-stream.js'

/** What the traffic routes work with. */
export interface TrafficRoutesOptions {
  readonly recorder: TrafficRecorder
  readonly replay: (exchangeId: number) => Promise<ReplayResult>
  readonly logger: Logger
}

/** Serve `req` if it is a traffic route; resolves false when it is not one. */
export async function handleTrafficRoute(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  options: TrafficRoutesOptions,
): Promise<boolean> {
  const { recorder } = options
  const path = url.pathname
  if (path === '/api/traffic') {
    expectMethod(req, 'GET')
    sendJson(res, 200, { limit: recorder.limit, exchanges: recorder.list() })
    return true
  }
  if (path === '/api/traffic/stream') {
    expectMethod(req, 'GET')
    serveTrafficStream(req, res, recorder)
    return true
  }
  if (path === '/api/traffic/clear') {
    expectMethod(req, 'POST')
    await readJsonBody(req)
    recorder.clear()
    sendJson(res, 200, { cleared: true })
    return true
  }
  const m = /^\/api\/traffic\/(\d{1,15})(\/replay)?$/.exec(path)
  if (!m) return false
  const id = Number(m[1])
  if (m[2] === undefined) {
    expectMethod(req, 'GET')
    const recording = recorder.get(id)
    if (!recording) throw new HttpProblem(404, `exchange ${id} is no longer recorded`)
    sendJson(res, 200, recording.detail())
    return true
  }
  expectMethod(req, 'POST')
  await readJsonBody(req)
  try {
    sendJson(res, 200, await options.replay(id))
  } catch (err) {
    if (err instanceof ReplayError) {
      throw new HttpProblem(err.code === 'not_found' ? 404 : 409, err.message)
    }
    options.logger.warn(`inspector: replay of exchange ${id} failed: ${(err as Error).message}`)
    throw new HttpProblem(500, `replay failed: ${(err as Error).message}`)
  }
  return true
}

function expectMethod(req: IncomingMessage, method: 'GET' | 'POST'): void {
  if (req.method !== method) throw new HttpProblem(405, `use ${method} here`)
}
