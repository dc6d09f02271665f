/**
 * API tokens (`GET /dashboard/tokens`): list, create (the secret shown once) and revoke. Tokens
 * authenticate `/api/*` calls as `Authorization: Bearer btk_…`.
 */
import { formatDateTime } from './format.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { TokenView } from '../token-view.js'
import { csrfField, page, type Notice, type Viewer } from './layout.js'

/** The tokens page; `created` shows a new token's secret once. */
export function tokensPage(
  viewer: Viewer,
  tokens: readonly TokenView[],
  opts: { created?: { name: string; secret: string }; notices?: readonly Notice[] } = {},
): SafeHtml {
  const csrf = csrfField(viewer.csrfToken)
  const created = opts.created
    ? html`<section class="card" id="new-token">
  <h2>New token: ${opts.created.name}</h2>
  <p><code class="key" id="token-secret">${opts.created.secret}</code> <button type="button" class="secondary" data-copy="token-secret">Copy</button></p>
  <p class="muted">Copy it now: it is shown only once. Use it as <code>Authorization: Bearer …</code> on <code>/api/*</code>.</p>
</section>`
    : ''
  const rows = tokens.map(
    (
      t,
    ) => html`<tr data-token="${t.id}"><td>${t.name}</td><td class="muted">${formatDateTime(t.createdAt)}</td>
<td class="muted">${t.lastUsedAt ? formatDateTime(t.lastUsedAt) : 'never'}</td>
<td><form method="post" action="/dashboard/tokens/${t.id}/revoke" class="inline" data-confirm="Revoke this token?">${csrf}<button type="submit" class="secondary">Revoke</button></form></td></tr>`,
  )
  return page(
    { title: 'API tokens', viewer, notices: opts.notices ?? [] },
    html`<h1>API tokens</h1>
${created}
${tokens.length > 0 ? html`<table><thead><tr><th>Name</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : html`<p class="muted">No API tokens.</p>`}
<h2>Create a token</h2>
<form method="post" action="/dashboard/tokens" class="card">${csrf}
  <label for="token-name">Name</label>
  <input id="token-name" name="name" type="text" maxlength="100" required placeholder="deploy script" />
  <p><button type="submit">Create token</button></p>
</form>`,
  )
}
