/**
 * A tunnel's Domain tab: its custom domain with its state (pending or verified, serving or not
 * under the plan), the DNS records to create, "Check now" and "Remove"; or the form that adds
 * one, with what the plan allows.
 */
import { html, type SafeHtml } from '../../http/html.js'
import { PLANS, type PlanId } from '../../plans.js'
import type { DomainView } from '../domains-port.js'
import type { TunnelView } from '../tunnel-view.js'
import { formatDateTime } from './format.js'
import { tunnelHeading, tunnelTabs } from './governance-pages.js'
import { csrfField, page, type Notice, type Viewer } from './layout.js'

/** What the Domain tab shows. */
export interface DomainPageData {
  readonly viewer: Viewer
  readonly tunnel: TunnelView
  readonly plan: PlanId
  readonly domain: DomainView | null
  readonly notices?: readonly Notice[]
  /** What the add form had, shown again after a refusal. */
  readonly typed?: string
}

/** The Domain tab. */
export function domainPage(d: DomainPageData): SafeHtml {
  const t = d.tunnel
  return page(
    { title: `${t.name ?? t.subdomain}: domain`, viewer: d.viewer, notices: d.notices ?? [] },
    html`${tunnelHeading(t)}
${tunnelTabs(t, 'domain')}
${d.domain ? domainCard(d.viewer, t, d.domain) : addForm(d)}`,
  )
}

function stateBadge(dv: DomainView): SafeHtml {
  if (dv.state === 'pending')
    return html`<span class="badge offline" id="domain-state" data-state="pending">pending: waiting for DNS</span>`
  return dv.serving
    ? html`<span class="badge online" id="domain-state" data-state="verified">verified</span>`
    : html`<span class="badge stopped" id="domain-state" data-state="verified" data-serving="false">verified, not served by your plan</span>`
}

function domainCard(viewer: Viewer, t: TunnelView, dv: DomainView): SafeHtml {
  const csrf = csrfField(viewer.csrfToken)
  const base = `/dashboard/tunnels/${t.id}/domain`
  return html`<section class="card" id="domain" data-domain="${dv.domain}">
  <h2>${dv.unicode} ${stateBadge(dv)}</h2>
  ${dv.unicode !== dv.domain ? html`<p class="muted">In DNS: <code>${dv.domain}</code></p>` : ''}
  ${dv.serving ? html`<p>Custom URL: <code id="custom-url">${dv.url}/mcp</code> <button type="button" class="secondary" data-copy="custom-url">Copy</button></p>` : ''}
  ${dv.problem ? html`<p class="notice ${dv.state === 'verified' && dv.serving ? 'warn' : 'error'}" id="domain-problem">${dv.problem}</p>` : ''}
  <p class="muted">Added ${formatDateTime(dv.createdAt)} · last checked ${dv.checkedAt ? formatDateTime(dv.checkedAt) : 'not yet'}${dv.verifiedAt ? html` · verified ${formatDateTime(dv.verifiedAt)}` : ''}</p>
  <h3>DNS records to create</h3>
  <p>At your DNS provider, create both records. The TXT record proves the domain is yours; the CNAME sends its traffic here. Keep both: burrowd checks them again every hour.</p>
  <table id="domain-records"><thead><tr><th>Type</th><th>Name</th><th>Value</th></tr></thead><tbody>
  ${dv.records.map((r) => html`<tr data-type="${r.type}"><td>${r.type}</td><td><code>${r.name}</code></td><td><code>${r.value}</code></td></tr>`)}
  </tbody></table>
  <p class="muted">For an apex domain that cannot have a CNAME, use A/AAAA records with the service's addresses instead. Pending domains are checked every 5 minutes.</p>
  <form method="post" action="${base}/verify" id="domain-verify">${csrf}<button type="submit">Check now</button></form>
</section>
<h2>Remove</h2>
<form method="post" action="${base}/remove" class="card" id="domain-remove" data-confirm="Remove ${dv.domain}? Agents using it stop reaching this tunnel.">${csrf}
  <p>Removing stops serving the domain at once; the tunnel's own URL keeps working.</p>
  <button type="submit" class="danger">Remove domain</button>
</form>`
}

function addForm(d: DomainPageData): SafeHtml {
  const plan = PLANS[d.plan]
  const note = plan.customDomains
    ? html`<p class="muted">The ${plan.name} plan allows ${d.plan === 'pro' ? 'one custom domain per account' : 'one custom domain per tunnel'}.</p>`
    : html`<p class="notice warn" id="domain-plan">Custom domains come with the Pro and Scale plans. <a href="/dashboard/billing">Upgrade your plan</a> to add one.</p>`
  return html`<form method="post" action="/dashboard/tunnels/${d.tunnel.id}/domain" class="card" id="domain-add">${csrfField(d.viewer.csrfToken)}
  <h2>Custom domain</h2>
  <p>Serve this tunnel at a domain of yours, e.g. <code>mcp.example.com</code>, with HTTPS. One domain per tunnel; no wildcards.</p>
  ${note}
  <label for="domain-name">Domain</label>
  <input id="domain-name" name="domain" type="text" maxlength="253" placeholder="mcp.example.com" value="${d.typed ?? ''}" required ${plan.customDomains ? '' : 'disabled'} />
  <button type="submit" ${plan.customDomains ? '' : 'disabled'}>Add domain</button>
</form>`
}
