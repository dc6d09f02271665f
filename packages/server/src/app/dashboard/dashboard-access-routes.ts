/**
 * The dashboard's Access tab of a tunnel: show it, save the mode and allowlist, make and revoke
 * agent tokens, disconnect OAuth clients. Every action checks the session's CSRF token and that
 * the tunnel is the caller's.
 */
import { parseAccessMode, parseAllowlist } from '../../access/tunnel-access.js'
import { HttpError } from '../../http/http-error.js'
import { redirect } from '../../http/responses.js'
import { tunnelView } from '../account-views.js'
import { withCustomUrls } from '../custom-url-views.js'
import { toHttpError } from '../store-error-status.js'
import type { Notice } from './layout.js'
import { accessPage, type AccessPageData } from './access-page.js'
import type { DashboardKit, DashboardRequest, DashboardRoute } from './dashboard-kit.js'

const NOTICES: Readonly<Record<string, Notice>> = {
  saved: { kind: 'info', text: 'Access saved: it applies to the next request.' },
  revoked: { kind: 'info', text: 'Agent token revoked.' },
  disconnected: { kind: 'info', text: 'Agent disconnected: its tokens no longer work.' },
}

/** The Access routes under `/dashboard/tunnels/:id`. */
export function accessRoutes(kit: DashboardKit): DashboardRoute[] {
  const { svc } = kit

  const found = async (c: DashboardRequest) => {
    const t = await svc.tunnels.get(c.account.id, c.params[0] ?? '')
    if (!t) throw new HttpError(404, 'not_found', 'No such tunnel in your account.')
    return t
  }

  /** The tunnel, once a write to its access is allowed (429 when too many: see AccessWriteLimits). */
  const writable = async (c: DashboardRequest) => {
    const t = await found(c)
    svc.accessWrites.spend(c.account.id, t.id)
    return t
  }

  const render = async (
    c: DashboardRequest,
    status: number,
    extra: Partial<AccessPageData> = {},
  ): Promise<void> => {
    const t = await found(c)
    const [access, tokens, agents, [tunnel]] = await Promise.all([
      svc.access.settings(t.id),
      svc.access.agentTokens(t.id),
      svc.access.connectedAgents(t.id),
      withCustomUrls(svc, c.account.id, [tunnelView(svc, c.account, t)]),
    ])
    const asked = c.query.get('notice') ?? ''
    const notice = Object.hasOwn(NOTICES, asked) ? NOTICES[asked] : undefined
    kit.html(
      c.res,
      status,
      accessPage({
        viewer: c.viewer,
        tunnel: tunnel!,
        access,
        tokens,
        agents,
        notices: notice ? [notice] : [],
        ...extra,
      }),
    )
  }

  const show = (c: DashboardRequest) => render(c, 200)

  const save = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    const t = await writable(c)
    const allowText = form.get('allow_ips') ?? ''
    try {
      const current = await svc.access.settings(t.id)
      const mode = form.get('mode')
      await svc.access.setSettings(t.id, {
        mode: mode === null ? current.mode : parseAccessMode(mode),
        allowIps: parseAllowlist(allowText),
      })
    } catch (err) {
      const e = toHttpError(err)
      return render(c, e.status, { allowText, notices: [{ kind: 'error', text: e.message }] })
    }
    redirect(c.res, `/dashboard/tunnels/${t.id}/access?notice=saved`)
  }

  const createToken = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    const t = await writable(c)
    try {
      const made = await svc.access.createAgentToken(t.id, form.get('name') ?? '')
      return await render(c, 200, { created: { name: made.token.name, secret: made.secret } })
    } catch (err) {
      const e = toHttpError(err)
      return render(c, e.status, { notices: [{ kind: 'error', text: e.message }] })
    }
  }

  const revokeToken = async (c: DashboardRequest) => {
    await kit.form(c)
    const t = await writable(c)
    if (!(await svc.access.revokeAgentToken(t.id, c.params[1] ?? ''))) {
      throw new HttpError(404, 'not_found', 'This tunnel has no such agent token.')
    }
    redirect(c.res, `/dashboard/tunnels/${t.id}/access?notice=revoked`)
  }

  const disconnect = async (c: DashboardRequest) => {
    await kit.form(c)
    const t = await writable(c)
    if (!(await svc.access.revokeAgent(t.id, c.params[1] ?? ''))) {
      throw new HttpError(404, 'not_found', 'This tunnel has no such connected agent.')
    }
    redirect(c.res, `/dashboard/tunnels/${t.id}/access?notice=disconnected`)
  }

  const id = '([\\w-]+)'
  return [
    { method: 'GET', pattern: new RegExp(`^/dashboard/tunnels/${id}/access$`), handler: show },
    { method: 'POST', pattern: new RegExp(`^/dashboard/tunnels/${id}/access$`), handler: save },
    {
      method: 'POST',
      pattern: new RegExp(`^/dashboard/tunnels/${id}/agent-tokens$`),
      handler: createToken,
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/dashboard/tunnels/${id}/agent-tokens/${id}/revoke$`),
      handler: revokeToken,
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/dashboard/tunnels/${id}/agents/${id}/revoke$`),
      handler: disconnect,
    },
  ]
}
