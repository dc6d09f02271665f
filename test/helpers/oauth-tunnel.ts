// A tunnel in its default access mode (`oauth`) for the authorization server's e2e tests: a
// service, an account that owns the tunnel, the counting MCP server behind a real `burrow up`.
import assert from 'node:assert/strict'
import type { Child } from './child.js'
import { startCountingServer, type CountingServer } from './quota-stack.js'
import { startClient, startService, type Service } from './stack.js'
import { signUp, type WebUser } from './web-client.js'

/** What `startOauthTunnel` started, and how to stop it. */
export interface OauthTunnel {
  readonly service: Service
  readonly server: CountingServer
  readonly owner: WebUser
  readonly client: Child
  /** The tunnel's public `/mcp` URL. */
  readonly mcpUrl: string
  stop(): Promise<void>
}

/** Start a service, sign up `name`, and serve its new tunnel `name` from the counting server. */
export async function startOauthTunnel(name: string): Promise<OauthTunnel> {
  const service = await startService({ BURROW_LOG: 'info' })
  const server = await startCountingServer()
  const owner = await signUp(`http://127.0.0.1:${service.port}`, name)
  const made = await owner.api<{ tunnel: { mcp_url: string }; key: string }>(
    'POST',
    '/api/tunnels',
    { name },
  )
  assert.equal(made.status, 201)
  const client = await startClient(service, made.json.key, ['--upstream', server.url])
  return {
    service,
    server,
    owner,
    client,
    mcpUrl: made.json.tunnel.mcp_url,
    async stop() {
      await client.stop()
      await server.child.stop()
      await service.close()
    },
  }
}
