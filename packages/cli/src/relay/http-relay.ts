/**
 * Single-upstream HTTP mode: each tunnelled request goes to the local Streamable HTTP server as
 * is (Host set to the local server's, path mapped onto the upstream URL's), and the response
 * streams back. An unreachable server gives the agent a 502 naming the URL and the cause.
 */
import { refusal, type Logger } from '@burrow/protocol'
import { Agent, request } from 'undici'
import type { LocalRequest, LocalResponse, RequestHandler } from './local-exchange.js'

/** Responses up to this size with a known length are read whole and sent as one frame. */
const SMALL_RESPONSE_BYTES = 64 * 1024

/** Relays to one local HTTP MCP server. */
export class HttpRelay implements RequestHandler {
  private readonly upstream: URL
  private readonly log: Logger
  private readonly dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 256 })

  constructor(upstream: string, log: Logger) {
    this.upstream = new URL(upstream)
    this.log = log
  }

  async handle(req: LocalRequest, res: LocalResponse): Promise<void> {
    const target = this.targetFor(req.path)
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(req.headers))
      if (name !== 'content-length') headers[name] = value
    let response
    try {
      response = await request(target, {
        method: req.method as 'GET' | 'POST' | 'DELETE',
        headers,
        body: req.body.length > 0 ? req.body : null,
        signal: req.signal,
        dispatcher: this.dispatcher,
        headersTimeout: 0,
        bodyTimeout: 0,
      })
    } catch (err) {
      if (req.signal.aborted) return
      return this.unreachable(res, target, err)
    }
    const out: Record<string, string> = {}
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined) continue
      out[name] = Array.isArray(value) ? value.join(', ') : value
    }
    const length = Number(out['content-length'] ?? NaN)
    try {
      if (Number.isFinite(length) && length <= SMALL_RESPONSE_BYTES) {
        const body = Buffer.from(await response.body.arrayBuffer())
        const status = sessionGone(response.statusCode, req, body) ? 404 : response.statusCode
        if (status !== response.statusCode)
          this.log.debug(
            `upstream ${target.href} no longer knows session ${req.headers['mcp-session-id']}; answering 404 so the agent re-initializes`,
          )
        res.writeHead(status, out)
        res.write(body)
        res.end()
        return
      }
      res.writeHead(response.statusCode, out)
      for await (const chunk of response.body) {
        if (res.closed) break
        if (!res.write(chunk as Buffer)) await new Promise<void>((resolve) => res.onDrain(resolve))
      }
      res.end()
    } catch (err) {
      if (req.signal.aborted) return
      this.log.warn(`upstream ${target.href} failed mid-response: ${(err as Error).message}`)
      response.body.destroy()
      res.destroy?.(`upstream ${target.href} failed mid-response: ${(err as Error).message}`)
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close()
  }

  /** The public path `/mcp?q` maps onto the upstream URL's path, with the public query string. */
  private targetFor(publicPath: string): URL {
    const target = new URL(this.upstream)
    const q = publicPath.indexOf('?')
    if (q !== -1) target.search = publicPath.slice(q)
    return target
  }

  private unreachable(res: LocalResponse, target: URL, err: unknown): void {
    const cause = describe(err)
    this.log.warn(`upstream ${target.href} unreachable: ${cause}`)
    const r = refusal(
      'upstream_unreachable',
      'upstream unreachable',
      `the local MCP server at ${target.href} is unreachable: ${cause}`,
    )
    res.writeHead(r.status, r.headers)
    res.write(Buffer.from(JSON.stringify(r.body)))
    res.end()
  }
}

/**
 * True when the upstream refused a request because it does not know its session, but said so
 * with 400 (as some servers do) instead of the 404 the MCP spec requires. Agents only start a new
 * session on 404, so the relay reports it as one.
 */
function sessionGone(status: number, req: LocalRequest, body: Buffer): boolean {
  if (status !== 400 || req.headers['mcp-session-id'] === undefined) return false
  return /session/i.test(body.toString('utf8', 0, Math.min(body.length, 2048)))
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const code = (err as { code?: unknown }).code
  const cause = (err as { cause?: unknown }).cause
  const detail = cause instanceof Error ? cause.message : err.message
  return typeof code === 'string' && !detail.includes(code) ? `${code}: ${detail}` : detail
}
