/**
 * The public edge: `/mcp` on `<sub>--<slug>.<zone>`. Reads what it must of each request (a POST's
 * JSON-RPC body), refuses with the envelope when it must, and streams everything else through
 * the tunnel both ways without buffering: the agent's pace governs the credit the tunnel grants.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  JSONRPC_CODE,
  MAX_CHUNK_BYTES,
  RESET_CODE,
  type JsonRpcId,
  type Logger,
  type MuxStream,
} from '@burrow/protocol'
import type { TunnelRegistry } from '../broker/tunnel-registry.js'
import {
  agentResponseHeaders,
  PREFLIGHT_HEADERS,
  upstreamRequestHeaders,
} from './forward-headers.js'
import { readBody } from './read-body.js'
import { sendRefusal } from './send-refusal.js'
import type { TunnelLookup } from './tunnel-lookup.js'

/** What the edge needs. */
export interface EdgeOptions {
  readonly lookup: TunnelLookup
  readonly registry: TunnelRegistry
  readonly maxBodyBytes: number
  readonly queueWaitMs: number
  readonly publicScheme: string
  readonly log: Logger
}

const METHODS = new Set(['POST', 'GET', 'DELETE'])

/** Serves tunnel hostnames. */
export class Edge {
  private readonly opts: EdgeOptions

  constructor(opts: EdgeOptions) {
    this.opts = opts
  }

  /** Handle a request whose Host is the tunnel label `label` (`<sub>--<slug>`). */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    label: string,
    host: string,
  ): Promise<void> {
    const url = req.url ?? '/'
    const path = url.split('?', 1)[0]
    if (path !== '/mcp') {
      return sendRefusal(
        res,
        'not_found',
        'not found',
        `only /mcp is served on tunnel hosts, not ${path}`,
      )
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, PREFLIGHT_HEADERS).end()
      return
    }
    if (!req.method || !METHODS.has(req.method)) {
      return sendRefusal(
        res,
        'method_not_allowed',
        'method not allowed',
        `${req.method} is not an MCP method`,
        {
          headers: { allow: 'GET, POST, DELETE, OPTIONS' },
        },
      )
    }
    const tunnel = await this.opts.lookup.byLabel(label)
    if (!tunnel) {
      return sendRefusal(res, 'tunnel_not_found', 'tunnel not found', `no tunnel is named ${host}`)
    }

    let body: Buffer | undefined
    let id: JsonRpcId = null
    if (req.method === 'POST') {
      const read = await readBody(req, this.opts.maxBodyBytes)
      if (read === 'aborted') return
      if (read === 'too_large') {
        return sendRefusal(
          res,
          'payload_too_large',
          'request too large',
          `request bodies are limited to ${this.opts.maxBodyBytes} bytes`,
          {
            close: true,
          },
        )
      }
      const parsed = parseJsonRpc(read)
      if (!parsed.ok) {
        return sendRefusal(
          res,
          parsed.code === JSONRPC_CODE.parseError ? 'parse_error' : 'invalid_request',
          parsed.message,
          parsed.reason,
          {
            jsonRpcCode: parsed.code,
          },
        )
      }
      id = parsed.id
      body = read
    }

    const link = await this.opts.registry.route(tunnel.id, this.opts.queueWaitMs)
    if (!link || res.destroyed) {
      return sendRefusal(
        res,
        'tunnel_offline',
        'tunnel offline',
        `no burrow client is connected to ${host}; start it with "burrow up"`,
        {
          id,
        },
      )
    }
    const head = {
      method: req.method,
      path: url,
      headers: upstreamRequestHeaders(req.rawHeaders, {
        clientIp: req.socket.remoteAddress ?? '',
        proto: this.opts.publicScheme,
        host: req.headers.host ?? host,
      }),
    }
    let stream: MuxStream
    if (!body || body.length <= MAX_CHUNK_BYTES) {
      stream = link.mux.open(head, body && body.length > 0 ? body : undefined, true)
    } else {
      stream = link.mux.open(head, undefined, false)
      stream.write(body)
      stream.end()
    }
    this.relay(stream, res, id)
  }

  /** Stream the tunnelled response to the agent, and cancel the stream if the agent leaves. */
  private relay(stream: MuxStream, res: ServerResponse, id: JsonRpcId): void {
    stream.onResponse = (head, inline, fin) => {
      if (res.destroyed) return
      const headers = agentResponseHeaders(head.headers)
      if (fin) {
        headers.push('content-length', String(inline?.length ?? 0))
        res.writeHead(head.status, headers)
        res.end(inline)
        return
      }
      res.writeHead(head.status, headers)
      res.flushHeaders()
      if (inline) res.write(inline)
    }
    stream.read(
      (chunk) => {
        if (res.destroyed) return true
        return res.write(chunk)
      },
      () => res.end(),
    )
    res.on('drain', () => stream.resumeReading())
    stream.onReset = (code, reason) => {
      if (res.headersSent) {
        res.destroy()
        return
      }
      if (code === RESET_CODE.internal || code === RESET_CODE.refused) {
        sendRefusal(
          res,
          'tunnel_offline',
          'tunnel offline',
          `the tunnel client went away during the request: ${reason}`,
          { id },
        )
      } else {
        sendRefusal(res, 'upstream_unreachable', 'upstream failed', reason, { id })
      }
    }
    res.on('close', () => {
      if (!res.writableFinished && !stream.closed)
        stream.reset(RESET_CODE.cancel, 'the agent disconnected')
    })
  }
}

type Parsed =
  { ok: true; id: JsonRpcId } | { ok: false; code: number; message: string; reason: string }

/** Check a POST body is JSON-RPC shaped and find the id to answer refusals with. */
function parseJsonRpc(body: Buffer): Parsed {
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch (err) {
    return {
      ok: false,
      code: JSONRPC_CODE.parseError,
      message: 'Parse error',
      reason: `the request body is not valid JSON: ${(err as Error).message}`,
    }
  }
  if (Array.isArray(value)) return { ok: true, id: null }
  if (typeof value !== 'object' || value === null) {
    return {
      ok: false,
      code: JSONRPC_CODE.invalidRequest,
      message: 'Invalid Request',
      reason: 'a JSON-RPC message must be an object',
    }
  }
  const raw = (value as { id?: unknown }).id
  return { ok: true, id: typeof raw === 'string' || typeof raw === 'number' ? raw : null }
}
