/**
 * Outbound webhooks (`GET /dashboard/webhooks` and one endpoint's page): register endpoints for
 * `quota.warning` and `tool.changed`, see each endpoint's secret, state and delivery log, rotate its secret,
 * re-enable or delete.
 */
import { formatDateTime } from './format.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { WebhookDeliveryView, WebhookEndpointView } from '../webhook-endpoint-view.js'
import { csrfField, page, type Notice, type Viewer } from './layout.js'

function state(e: WebhookEndpointView): SafeHtml {
  return e.disabledAt
    ? html`<span class="badge stopped">disabled</span> <span class="muted">${e.disabledReason ?? ''}</span>`
    : html`<span class="badge online">active</span>`
}

/** The list of endpoints and the form to add one. */
export function webhooksPage(
  viewer: Viewer,
  endpoints: readonly WebhookEndpointView[],
  notices: readonly Notice[] = [],
  form: { url?: string } = {},
): SafeHtml {
  const rows = endpoints.map(
    (
      e,
    ) => html`<tr data-endpoint="${e.id}"><td><a href="/dashboard/webhooks/${e.id}">${e.url}</a></td>
<td>${e.events.join(', ')}</td><td>${state(e)}</td></tr>`,
  )
  return page(
    { title: 'Webhooks', viewer, notices },
    html`<h1>Webhooks</h1>
<p id="webhook-events">Burrow sends <code>quota.warning</code> when a tunnel reaches 80% of a monthly limit and <code>tool.changed</code> when a tunnel's server changes a tool it pinned (see the Tools tab), signed as
<a href="https://www.standardwebhooks.com/">Standard Webhooks</a> with the endpoint's secret.</p>
${endpoints.length > 0 ? html`<table><thead><tr><th>URL</th><th>Events</th><th>State</th></tr></thead><tbody>${rows}</tbody></table>` : html`<p class="muted">No endpoints yet.</p>`}
<h2>Add an endpoint</h2>
<form method="post" action="/dashboard/webhooks" class="card">${csrfField(viewer.csrfToken)}
  <label for="url">URL</label>
  <input id="url" name="url" type="url" required placeholder="https://example.com/hooks/burrow" value="${form.url ?? ''}" />
  <p><button type="submit">Add endpoint</button></p>
</form>`,
  )
}

/** One endpoint: its secret, state, delivery log and actions. */
export function webhookPage(
  viewer: Viewer,
  e: WebhookEndpointView,
  deliveries: readonly WebhookDeliveryView[],
  notices: readonly Notice[] = [],
): SafeHtml {
  const csrf = csrfField(viewer.csrfToken)
  const rows = deliveries.map(
    (
      d,
    ) => html`<tr data-delivery="${d.id}" data-status="${d.status}"><td><code>${d.id}</code></td><td>${d.type}</td><td>${d.status}</td>
<td>${d.attempts}</td><td class="muted">${d.lastAttemptAt ? formatDateTime(d.lastAttemptAt) : '—'}</td>
<td>${d.lastStatus ?? ''} ${d.lastError ?? ''}</td><td class="muted">${d.nextAttemptAt && d.status === 'pending' ? formatDateTime(d.nextAttemptAt) : ''}</td></tr>`,
  )
  return page(
    { title: 'Webhook endpoint', viewer, notices },
    html`<h1>Webhook endpoint</h1>
<section class="card">
  <p><code>${e.url}</code> ${state(e)}</p>
  <p>Events: ${e.events.join(', ')}</p>
  ${e.secret ? html`<p>Signing secret: <code class="key" id="webhook-secret">${e.secret}</code> <button type="button" class="secondary" data-copy="webhook-secret">Copy</button></p>` : ''}
  ${e.disabledAt ? html`<form method="post" action="/dashboard/webhooks/${e.id}/enable" class="inline">${csrf}<button type="submit">Enable again</button></form>` : ''}
  <form method="post" action="/dashboard/webhooks/${e.id}/rotate-secret" class="inline" data-confirm="Make a new signing secret? The current one keeps signing deliveries for 24 hours.">${csrf}<button type="submit" class="secondary">Rotate secret</button></form>
  <form method="post" action="/dashboard/webhooks/${e.id}/delete" class="inline" data-confirm="Delete this endpoint?">${csrf}<button type="submit" class="danger">Delete</button></form>
</section>
<h2>Delivery log</h2>
${deliveries.length > 0 ? html`<table id="deliveries"><thead><tr><th>Id</th><th>Event</th><th>Status</th><th>Attempts</th><th>Last attempt</th><th>Last result</th><th>Next attempt</th></tr></thead><tbody>${rows}</tbody></table>` : html`<p class="muted">Nothing sent yet.</p>`}`,
  )
}
