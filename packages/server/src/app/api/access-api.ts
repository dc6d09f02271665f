/**
 * The access routes of the JSON API, for a tunnel the caller owns:
 * `GET|PUT /api/tunnels/:id/access` (mode and IP allowlist),
 * `GET|POST /api/tunnels/:id/agent-tokens` and `DELETE …/agent-tokens/:token` (`atk_…` secrets,
 * shown once, with the client snippet that carries them), `GET /api/tunnels/:id/agents` and `DELETE …/agents/:grant` (connected OAuth clients).
 */
import { parseAccessMode, parseAllowlist } from '../../access/tunnel-access.js'
import type { TunnelAccess } from '../../store/tunnel-access-row.js'
import { HttpError } from '../../http/http-error.js'
import { readJsonObject } from '../../http/request-body.js'
import { sendApiJson } from '../../http/responses.js'
import type { AgentTokenView, ConnectedAgentView } from '../access-port.js'
import { tunnelView } from '../account-views.js'
import { agentTokenSnippet } from '../agent-token-snippet.js'
import { withCustomUrls } from '../custom-url-views.js'
import type { TunnelRecord, WebServices } from '../web-services.js'
import type { ApiCall } from './api-call.js'

/** The JSON of a tunnel's access settings. */
export function accessJson(access: TunnelAccess) {
  return { mode: access.mode, allow_ips: access.allowIps }
}

/**
 * The settings a body asks for over `current`: `access` (or `mode`) and `allow_ips`, each
 * optional. Throws `StoreError` `invalid` naming the field.
 */
export function accessFromBody(body: Record<string, unknown>, current: TunnelAccess): TunnelAccess {
  const modeValue = body.access ?? body.mode
  return {
    mode: modeValue === undefined ? current.mode : parseAccessMode(modeValue),
    allowIps:
      body.allow_ips === undefined || body.allow_ips === null
        ? body.allow_ips === null
          ? []
          : current.allowIps
        : parseAllowlist(body.allow_ips),
  }
}

function tokenJson(t: AgentTokenView) {
  return {
    id: t.id,
    name: t.name,
    created_at: t.createdAt.toISOString(),
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
  }
}

function agentJson(a: ConnectedAgentView) {
  return {
    id: a.id,
    client_id: a.clientId,
    client_name: a.clientName,
    approved_by: a.approvedBy,
    created_at: a.createdAt.toISOString(),
    last_used_at: a.lastUsedAt?.toISOString() ?? null,
  }
}

/** The access handlers, for a tunnel the caller owns (`tunnelId`). */
export function accessApi(svc: WebServices) {
  return {
    async get(c: ApiCall, tunnelId: string): Promise<void> {
      sendApiJson(c.res, 200, accessJson(await svc.access.settings(tunnelId)))
    },

    async put(c: ApiCall, tunnelId: string): Promise<void> {
      const body = await readJsonObject(c.req)
      const next = accessFromBody(body, await svc.access.settings(tunnelId))
      sendApiJson(c.res, 200, accessJson(await svc.access.setSettings(tunnelId, next)))
    },

    async listTokens(c: ApiCall, tunnelId: string): Promise<void> {
      const tokens = await svc.access.agentTokens(tunnelId)
      sendApiJson(c.res, 200, { agent_tokens: tokens.map(tokenJson) })
    },

    /** 201 with the token, its secret, and the snippet the dashboard shows with it (or null). */
    async createToken(c: ApiCall, tunnel: TunnelRecord): Promise<void> {
      const body = await readJsonObject(c.req)
      const name = body.name
      if (typeof name !== 'string') {
        throw new HttpError(400, 'invalid', '"name" must be a string naming the agent', {
          field: 'name',
        })
      }
      const created = await svc.access.createAgentToken(tunnel.id, name)
      const [[view], { mode }] = await Promise.all([
        withCustomUrls(svc, c.account.id, [tunnelView(svc, c.account, tunnel)]),
        svc.access.settings(tunnel.id),
      ])
      sendApiJson(c.res, 201, {
        agent_token: tokenJson(created.token),
        secret: created.secret,
        snippet: agentTokenSnippet({ ...view!, accessMode: mode }, created.secret),
      })
    },

    async revokeToken(c: ApiCall, tunnelId: string, id: string): Promise<void> {
      if (!(await svc.access.revokeAgentToken(tunnelId, id))) {
        throw new HttpError(404, 'not_found', 'this tunnel has no such agent token')
      }
      sendApiJson(c.res, 204)
    },

    async listAgents(c: ApiCall, tunnelId: string): Promise<void> {
      const agents = await svc.access.connectedAgents(tunnelId)
      sendApiJson(c.res, 200, { agents: agents.map(agentJson) })
    },

    async revokeAgent(c: ApiCall, tunnelId: string, id: string): Promise<void> {
      if (!(await svc.access.revokeAgent(tunnelId, id))) {
        throw new HttpError(404, 'not_found', 'this tunnel has no such connected agent')
      }
      sendApiJson(c.res, 204)
    },
  }
}
