/**
 * A tunnel's Access tab (`/dashboard/tunnels/:id/access`): who may call it (OAuth, agent tokens
 * or anyone, with a warning), the IP allowlist, its agent tokens (a new one's secret shown once)
 * and the OAuth clients connected to it, each revocable.
 */
import type { TunnelAccess } from '../../store/tunnel-access-row.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { AgentTokenView, ConnectedAgentView } from '../access-port.js'
import type { TunnelView } from '../tunnel-view.js'
import { formatDateTime } from './format.js'
import { tunnelHeading, tunnelTabs } from './governance-pages.js'
import { csrfField, page, type Notice, type Viewer } from './layout.js'
import { agentTokenSnippet } from '../agent-token-snippet.js'
import { shownName } from './shown-name.js'

/** What the Access tab shows. */
export interface AccessPageData {
  readonly viewer: Viewer
  readonly tunnel: TunnelView
  readonly access: TunnelAccess
  /** The allowlist as typed, when a save was refused. */
  readonly allowText?: string
  readonly tokens: readonly AgentTokenView[]
  readonly agents: readonly ConnectedAgentView[]
  readonly created?: { readonly name: string; readonly secret: string }
  readonly notices?: readonly Notice[]
}

const MODES = [
  [
    'oauth',
    'OAuth sign-in',
    'Agents such as Claude, ChatGPT, Cursor and VS Code sign in; you approve each one with this account.',
  ],
  ['token', 'Agent tokens', 'Agents send "Authorization: Bearer atk_…" with a token made below.'],
  ['public', 'Public', 'Anyone who knows the URL can call your tools.'],
] as const

/** The Access tab. */
export function accessPage(d: AccessPageData): SafeHtml {
  const t = d.tunnel
  const csrf = csrfField(d.viewer.csrfToken)
  const warning =
    d.access.mode === 'public'
      ? html`<p class="notice warn" id="public-warning" role="alert">This tunnel is public: anyone who knows or guesses its URL can call your local tools. Choose OAuth sign-in unless that is what you want.</p>`
      : ''
  const modes = MODES.map(
    ([mode, label, text]) =>
      html`<label class="choice"><input type="radio" name="mode" value="${mode}"${d.access.mode === mode ? html` checked` : ''} /> <span><strong>${label}</strong> <span class="muted">${text}</span></span></label>`,
  )
  // The one page that may show the secret in a snippet: the one that just made it.
  const tokenSnippet = (secret: string) => {
    const snippet = agentTokenSnippet({ ...t, accessMode: d.access.mode }, secret)
    return snippet
      ? html`<p>With it, the client configuration for this tunnel: <button type="button" class="secondary" data-copy="agent-token-snippet">Copy</button></p>
  <pre id="agent-token-snippet">${JSON.stringify(snippet, null, 2)}</pre>`
      : ''
  }
  const created = d.created
    ? html`<section class="card" id="new-agent-token">
  <h3>New agent token: ${d.created.name}</h3>
  <p><code class="key" id="agent-token-secret">${d.created.secret}</code> <button type="button" class="secondary" data-copy="agent-token-secret">Copy</button></p>
  <p class="muted">Copy it now: it is shown only once. Agents send it as <code>Authorization: Bearer …</code>.</p>
  ${tokenSnippet(d.created.secret)}
</section>`
    : ''
  const tokenRows = d.tokens.map(
    (
      k,
    ) => html`<tr data-agent-token="${k.id}"><td>${k.name}</td><td class="muted">${formatDateTime(k.createdAt)}</td>
<td class="muted">${k.lastUsedAt ? formatDateTime(k.lastUsedAt) : 'never'}</td>
<td><form method="post" action="/dashboard/tunnels/${t.id}/agent-tokens/${k.id}/revoke" class="inline" data-confirm="Revoke this agent token?">${csrf}<button type="submit" class="secondary">Revoke</button></form></td></tr>`,
  )
  const agentRows = d.agents.map(
    (
      a,
    ) => html`<tr data-agent="${a.id}"><td>${shownName(a.clientName)}<br /><code class="muted">${a.clientId}</code></td>
<td>${a.approvedBy}<br /><span class="muted">${formatDateTime(a.createdAt)}</span></td>
<td class="muted">${a.lastUsedAt ? formatDateTime(a.lastUsedAt) : 'never'}</td>
<td><form method="post" action="/dashboard/tunnels/${t.id}/agents/${a.id}/revoke" class="inline" data-confirm="Disconnect this agent? It must sign in again.">${csrf}<button type="submit" class="secondary">Disconnect</button></form></td></tr>`,
  )
  return page(
    { title: `${t.name ?? t.subdomain} · access`, viewer: d.viewer, notices: d.notices ?? [] },
    html`${tunnelHeading(t)}
${tunnelTabs(t, 'access')}
${warning}
<h2>Who may call this tunnel</h2>
<form method="post" action="/dashboard/tunnels/${t.id}/access" class="card" id="access-form">${csrf}
  <fieldset class="choices"><legend class="sr-only">Access mode</legend>${modes}</fieldset>
  <label for="allow-ips">IP allowlist (optional, any mode)</label>
  <textarea id="allow-ips" name="allow_ips" rows="3" placeholder="203.0.113.0/24">${d.allowText ?? d.access.allowIps.join('\n')}</textarea>
  <p class="muted">One address or CIDR per line; callers from elsewhere are refused. Empty: any address.</p>
  <button type="submit">Save access</button>
</form>
<h2>Connected agents</h2>
${d.agents.length > 0 ? html`<table id="agents"><thead><tr><th>Client</th><th>Approved by</th><th>Last use</th><th></th></tr></thead><tbody>${agentRows}</tbody></table>` : html`<p class="muted" id="no-agents">No agent has signed in to this tunnel.</p>`}
<h2>Agent tokens</h2>
${created}
${d.tokens.length > 0 ? html`<table id="agent-tokens"><thead><tr><th>Name</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>${tokenRows}</tbody></table>` : html`<p class="muted">No agent tokens.</p>`}
<form method="post" action="/dashboard/tunnels/${t.id}/agent-tokens" class="card">${csrf}
  <label for="agent-token-name">Name</label>
  <input id="agent-token-name" name="name" type="text" maxlength="100" required placeholder="CI agent" />
  <p class="muted">Tokens work while the tunnel's access is "Agent tokens".</p>
  <p><button type="submit">Create agent token</button></p>
</form>`,
  )
}
