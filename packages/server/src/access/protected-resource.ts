/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) on every tunnel host, at
 * `/.well-known/oauth-protected-resource` and the path-suffixed `/.well-known/oauth-protected-resource/mcp`
 * that MCP clients try first. It names the tunnel's `/mcp` URL as the resource and burrowd's
 * service host as the authorization server. Served for any tunnel host label, existing or not,
 * so that it tells nobody which tunnels exist. It names only the host it is served on: on a
 * custom domain, the domain, never the tunnel's own host label behind it (`<sub>--<slug>`,
 * which carries the account's slug).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendRefusal } from '../http/send-refusal.js'
import type { AccessGate } from './access-gate.js'
import { MCP_SCOPE } from './oauth/mcp-scope.js'

const PATHS = new Set([
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
])

/** Whether `path` is one of the metadata documents' paths. */
export function isProtectedResourcePath(path: string | undefined): boolean {
  return path !== undefined && PATHS.has(path)
}

/** Answer a request for the metadata of the tunnel reached at `origin` (host or custom domain). */
export function serveProtectedResource(
  req: IncomingMessage,
  res: ServerResponse,
  gate: AccessGate,
  origin: string,
): void {
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, OPTIONS',
    'access-control-allow-headers': 'mcp-protocol-version',
  }
  if (req.method === 'OPTIONS') {
    res.writeHead(204, cors).end()
    return
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return sendRefusal(res, 'method_not_allowed', 'method not allowed', 'metadata accepts GET', {
      headers: { allow: 'GET, HEAD, OPTIONS' },
    })
  }
  const body = JSON.stringify({
    resource: gate.resource(origin),
    authorization_servers: [gate.issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: [MCP_SCOPE],
    resource_name: `Burrow tunnel ${new URL(origin).hostname}`,
  })
  res.writeHead(200, {
    ...cors,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'public, max-age=300',
  })
  res.end(req.method === 'HEAD' ? undefined : body)
}
