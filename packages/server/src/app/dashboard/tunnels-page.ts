/**
 * The dashboard's home (`GET /dashboard`): the account's tunnels with their status and public
 * URLs, the form that creates one, and, when the account has more tunnels than its plan allows,
 * the choice of which keep serving.
 */
import { accessHeaders, AGENT_TOKEN_PLACEHOLDER, clientSnippet } from '@burrow/protocol'
import { PLANS, type PlanId } from '../../plans.js'
import { formatDateTime } from './format.js'
import { html, type SafeHtml } from '../../http/html.js'
import { csrfField, page, type Notice, type Viewer } from './layout.js'
import type { TunnelView, TunnelWithAccess } from '../tunnel-view.js'
import { tunnelTabs } from './governance-pages.js'
import { shellWord } from './shell-word.js'
import type { UrlForm } from './auth-pages.js'

/** What the tunnels page shows. */
export interface TunnelsPageData {
  readonly viewer: Viewer
  readonly plan: PlanId
  readonly tunnels: readonly TunnelView[]
  readonly notices?: readonly Notice[]
  /** What the create form had, when it is shown again after an error. */
  readonly form?: { readonly name?: string; readonly subdomain?: string }
  /** This service's public URL form, for the create form's hint. */
  readonly urlForm: UrlForm
}

/** A tunnel's status badge. */
export function statusBadge(t: TunnelView): SafeHtml {
  if (!t.serving)
    return html`<span class="badge stopped" data-status="stopped">stopped: over plan limit</span>`
  return t.online
    ? html`<span class="badge online" data-status="online">online</span>`
    : html`<span class="badge offline" data-status="offline">offline</span>`
}

/** A warning badge on a public tunnel (anyone with its URL can call it), linking to its access. */
export function accessBadge(t: TunnelView): SafeHtml | string {
  return t.accessMode === 'public'
    ? html` <a class="badge stopped" data-access="public" href="/dashboard/tunnels/${t.id}/access" title="Anyone with the URL can call this tunnel">public</a>`
    : ''
}

/** The banner naming the tunnels whose tools changed since their owner approved them. */
function toolsBanner(tunnels: readonly TunnelView[]): SafeHtml | string {
  const changed = tunnels.filter((t) => (t.toolsAwaiting ?? 0) > 0)
  if (changed.length === 0) return ''
  return html`<p class="notice warn" id="tools-banner" role="alert">Tools changed since you approved them on ${changed.map(
    (t, i) =>
      html`${i > 0 ? ', ' : ''}<a href="/dashboard/tunnels/${t.id}/tools">${t.name ?? t.subdomain}</a>`,
  )}. Review them before agents rely on them.</p>`
}

/** The tunnels page. */
export function tunnelsPage(d: TunnelsPageData): SafeHtml {
  const plan = PLANS[d.plan]
  const stopped = d.tunnels.filter((t) => !t.serving).length
  const rows = d.tunnels.map(
    (t) => html`<tr data-tunnel="${t.id}">
  <td><a href="/dashboard/tunnels/${t.id}">${t.name ?? t.subdomain}</a></td>
  <td><code>${t.publicUrl}/mcp</code>${t.customUrl ? html`<br /><code data-custom-url>${t.customUrl}/mcp</code>` : ''}</td>
  <td>${statusBadge(t)}${accessBadge(t)}${(t.toolsAwaiting ?? 0) > 0 ? html` <a class="badge stopped" data-tools-awaiting="${t.toolsAwaiting ?? 0}" href="/dashboard/tunnels/${t.id}/tools">tools changed</a>` : ''}</td>
  <td class="muted">${t.lastSeenAt ? formatDateTime(t.lastSeenAt) : 'never'}</td>
</tr>`,
  )
  const table =
    d.tunnels.length === 0
      ? html`<p class="card">No tunnels yet. Create one below, then run <code>burrow up</code> with its key.</p>`
      : html`<table id="tunnels"><thead><tr><th>Name</th><th>Public URL</th><th>Status</th><th>Last seen</th></tr></thead>
<tbody>${rows}</tbody></table>`
  const choose =
    stopped > 0
      ? html`<section class="card" id="choose-serving">
  <h2>Your ${plan.name} plan serves ${plan.tunnels} of your ${d.tunnels.length} tunnels</h2>
  <p>${stopped} ${stopped === 1 ? 'tunnel is' : 'tunnels are'} stopped: agents calling them get a <code>plan_limit</code> error.
  <a href="/dashboard/billing">Upgrade</a> to serve them all, or choose which stay.</p>
  <form method="post" action="/dashboard/tunnels/serving">${csrfField(d.viewer.csrfToken)}
    ${d.tunnels.map(
      (t) =>
        html`<label><input type="checkbox" name="serving" value="${t.id}"${t.serving ? html` checked` : ''} /> ${t.name ?? t.subdomain}</label>`,
    )}
    <p><button type="submit">Keep these serving</button></p>
  </form>
</section>`
      : ''
  return page(
    { title: 'Tunnels', viewer: d.viewer, notices: d.notices ?? [] },
    html`<h1>Tunnels</h1>
<p class="muted">${d.tunnels.length} of ${plan.tunnels} tunnels on the ${plan.name} plan.</p>
${toolsBanner(d.tunnels)}
${choose}
${table}
<h2>Create a tunnel</h2>
<form method="post" action="/dashboard/tunnels" class="card" id="create-tunnel">
  ${csrfField(d.viewer.csrfToken)}
  <label for="name">Name</label>
  <input id="name" name="name" type="text" maxlength="100" placeholder="docs server" value="${d.form?.name ?? ''}" />
  <label for="subdomain">Subdomain <span class="muted">(optional)</span></label>
  <input id="subdomain" name="subdomain" type="text" maxlength="40" placeholder="docs" value="${d.form?.subdomain ?? ''}" />
  <p class="muted">The public URL is <code id="tunnel-url-form">${d.urlForm.scheme}//&lt;subdomain&gt;--${d.viewer.slug}${d.urlForm.suffix}/mcp</code>.
  Without a subdomain, one is made from the name (a random one without a name).</p>
  <button type="submit">Create tunnel</button>
</form>`,
  )
}

/**
 * The snippet for a tunnel as pretty JSON: with the header a `token` tunnel's agents send, with
 * `token` in it when the page has just made that token, the placeholder otherwise.
 */
export function snippetJson(t: TunnelWithAccess, token?: string): string {
  const headers = accessHeaders(t.accessMode, token)
  return JSON.stringify(clientSnippet(t.customUrl ?? t.publicUrl, t.name, headers), null, 2)
}

/**
 * What a `token` tunnel's snippet asks of its reader, as `burrow up` says it: the header, and
 * where to make the token that replaces the placeholder. Nothing for other modes.
 */
export function snippetAccessNote(t: TunnelWithAccess): SafeHtml | string {
  if (t.accessMode !== 'token') return ''
  return html`<p class="muted" id="snippet-access">Agents send an agent token (access mode: token) as the header <code>Authorization: Bearer ${AGENT_TOKEN_PLACEHOLDER}</code>, which the snippet carries: put the token in place of <code>${AGENT_TOKEN_PLACEHOLDER}</code>. Make one on the tunnel's <a href="/dashboard/tunnels/${t.id}/access">Access</a> tab.</p>`
}

/** What the page made for a tunnel says about who may call it, per access mode. */
function accessHint(t: TunnelWithAccess): SafeHtml | string {
  switch (t.accessMode) {
    case 'oauth':
      return html`<p class="muted" id="access-hint">Agents sign in with your Burrow account (OAuth) when they first connect, and you approve each one. Change who may call it on its <a href="/dashboard/tunnels/${t.id}/access">Access</a> tab.</p>`
    case 'token':
      return snippetAccessNote(t)
    case 'public':
      return html`<p class="muted" id="access-hint">Anyone with the URL can call it. Change who may call it on its <a href="/dashboard/tunnels/${t.id}/access">Access</a> tab.</p>`
  }
}

/**
 * The page that shows a new key, once: after a tunnel is created or its key rotated. The key is
 * in `#tunnel-key`; the `burrow up` command and the client snippet come with it.
 */
export function keyOncePage(
  viewer: Viewer,
  t: TunnelWithAccess,
  key: string,
  rotated: boolean,
  broker: string | null = null,
): SafeHtml {
  return page(
    {
      title: rotated ? 'New key' : 'Tunnel created',
      viewer,
      notices: [
        {
          kind: 'warn',
          text: 'Copy the key now: it is shown only once. Burrow keeps only a hash of it.',
        },
      ],
    },
    html`<h1>${rotated ? 'New key for' : 'Tunnel created:'} ${t.name ?? t.subdomain}</h1>
${rotated ? html`<p>The old key no longer works; a client still running with it was disconnected.</p>` : ''}
<section class="card">
  <h2>Tunnel key</h2>
  <p><code class="key" id="tunnel-key">${key}</code> <button type="button" class="secondary" data-copy="tunnel-key">Copy</button></p>
  <h2>Run it</h2>
  <div class="command-box"><pre id="up-command">BURROW_API_KEY=${key} burrow${broker ? ` --broker ${broker}` : ''} up --upstream http://127.0.0.1:3000/mcp${t.name ? ` --name ${shellWord(t.name)}` : ''}</pre>
  <button type="button" class="secondary" data-copy="up-command">Copy</button></div>
  <p class="muted">Or <code>--stdio "npx -y your-mcp-server"</code> for a stdio server.</p>
  <p class="muted">No <code>burrow</code> command yet? In a checkout of Burrow, run <code>npx burrow</code> from its folder; elsewhere install the client first (README, "Installing the client": it is not on the npm registry, whose <code>burrow</code> is another package).</p>
  <h2>Public URL</h2>
  <p><code id="public-url">${t.publicUrl}/mcp</code></p>
  <h2>Client configuration</h2>
  <pre id="snippet">${snippetJson(t)}</pre>
  ${rotated ? snippetAccessNote(t) : accessHint(t)}
</section>
<p><a href="/dashboard/tunnels/${t.id}">Tunnel details</a> · <a href="/dashboard">All tunnels</a></p>`,
  )
}

/** A tunnel's own page: status, URL, snippet, rename, rotate key, delete. */
export function tunnelPage(
  viewer: Viewer,
  t: TunnelWithAccess,
  notices: readonly Notice[] = [],
  activity: SafeHtml | null = null,
): SafeHtml {
  const csrf = csrfField(viewer.csrfToken)
  return page(
    { title: t.name ?? t.subdomain, viewer, notices },
    html`<h1>${t.name ?? t.subdomain} ${statusBadge(t)}${accessBadge(t)}</h1>
${tunnelTabs(t, 'overview')}
<section class="card">
  <p>Public URL: <code id="public-url">${t.publicUrl}/mcp</code> <button type="button" class="secondary" data-copy="public-url">Copy</button></p>
  ${t.customUrl ? html`<p>Custom domain: <code id="custom-url">${t.customUrl}/mcp</code> <button type="button" class="secondary" data-copy="custom-url">Copy</button></p>` : ''}
  <p class="muted">Created ${formatDateTime(t.createdAt)} · last seen ${t.lastSeenAt ? formatDateTime(t.lastSeenAt) : 'never'}</p>
  <h2>Client configuration</h2>
  <pre id="snippet">${snippetJson(t)}</pre>
  ${snippetAccessNote(t)}
</section>
${activity ?? ''}
<h2>Rename</h2>
<form method="post" action="/dashboard/tunnels/${t.id}/rename" class="card">${csrf}
  <label for="name">Name</label>
  <input id="name" name="name" type="text" maxlength="100" value="${t.name ?? ''}" />
  <p class="muted">The public URL does not change.</p>
  <button type="submit">Rename</button>
</form>
<h2>Key</h2>
<form method="post" action="/dashboard/tunnels/${t.id}/rotate-key" class="card" data-confirm="Rotate the key? The running client will be disconnected.">${csrf}
  <p>Rotating makes a new key and stops the old one at once; a client running with the old key is disconnected and reports "authentication failed".</p>
  <button type="submit" class="secondary">Rotate key</button>
</form>
<h2>Delete</h2>
<form method="post" action="/dashboard/tunnels/${t.id}/delete" class="card" data-confirm="Delete this tunnel? Its URL stops working.">${csrf}
  <p>Deleting frees the URL and disconnects its client.</p>
  <button type="submit" class="danger">Delete tunnel</button>
</form>`,
  )
}
