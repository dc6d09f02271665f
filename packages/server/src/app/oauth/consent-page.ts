/**
 * The consent page of the authorization endpoint: which client asks, for which tunnel, as which
 * account, with Approve and Deny; and the page that explains a request burrowd will not honour.
 */
import { html, type SafeHtml } from '../../http/html.js'
import { page, type Viewer } from '../dashboard/layout.js'
import { shownName } from '../dashboard/shown-name.js'

/** What the consent page shows. */
export interface ConsentView {
  readonly viewer: Viewer
  readonly clientName: string
  readonly clientId: string
  readonly tunnelName: string
  readonly tunnelUrl: string
  readonly redirectUri: string
  /** The request's parameters, sent back with the answer. */
  readonly params: readonly (readonly [string, string])[]
}

/**
 * The consent page. Approve starts disabled and is enabled by a gesture on the page
 * (`data-deliberate`, in app.js): framing is refused by the CSP, and this keeps a page that
 * swaps in this one under the owner's double-click from getting the second click. The client's
 * name is what the client says: shown as the dashboard shows a server's names, its hidden
 * characters (zero-width and other format characters) marked and a mix of scripts flagged.
 */
export function consentPage(v: ConsentView): SafeHtml {
  const fields = v.params.map(
    ([k, val]) => html`<input type="hidden" name="${k}" value="${val}" />`,
  )
  return page(
    { title: 'Connect an agent', viewer: v.viewer },
    html`<h1>Connect an agent to your tunnel</h1>
<div class="card" id="consent">
  <p><strong id="consent-client">${shownName(v.clientName)}</strong> wants to call the tools of your tunnel
  <strong id="consent-tunnel">${v.tunnelName}</strong> (<code>${v.tunnelUrl}</code>)
  as <strong id="consent-account">${v.viewer.email}</strong>.</p>
  <p class="muted">Client: <code>${v.clientId}</code> (${v.clientId.startsWith('https://') ? html`described by the document at <code>${new URL(v.clientId).host}</code>` : 'registered itself; its name is what it says about itself'})<br />It will be sent back to <code>${v.redirectUri}</code>.
  You can disconnect it at any time from the tunnel's page.</p>
  <form method="post" action="/oauth/authorize">
    <input type="hidden" name="_csrf" value="${v.viewer.csrfToken}" />
    ${fields}
    <button type="submit" name="decision" value="approve" id="approve" disabled data-deliberate>Approve</button>
    <button type="submit" name="decision" value="deny" id="deny" class="secondary">Deny</button>
  </form>
  <p class="muted" id="deliberate-hint">Approve is enabled once you move the pointer, press a key or touch the page (not the button): a click meant for another window cannot approve.</p>
  <noscript><p>Approving needs JavaScript.</p></noscript>
</div>`,
  )
}

/** A request that cannot be honoured, explained. */
export function refusedPage(message: string, viewer: Viewer | null): SafeHtml {
  return page(
    { title: 'Cannot connect this agent', viewer, notices: [{ kind: 'error', text: message }] },
    html`<h1>Cannot connect this agent</h1>
<p>Go back to the application that sent you here and try again; if it keeps happening, its
connection settings need fixing.</p>`,
  )
}
