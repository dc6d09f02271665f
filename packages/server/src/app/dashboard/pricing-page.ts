/**
 * The public pricing page (`GET /pricing`), no sign-in needed; rendered from the plan catalog.
 */
import { html, type SafeHtml } from '../../http/html.js'
import type { UrlForm } from './auth-pages.js'
import { page, type Viewer } from './layout.js'
import { planCards } from './plan-cards.js'

/** The pricing page; `urlForm` is how this service writes public URLs, as the sign-up page shows. */
export function pricingPage(viewer: Viewer | null, urlForm: UrlForm): SafeHtml {
  return page(
    { title: 'Pricing', viewer },
    html`<h1>Pricing</h1>
<p>Put a local MCP server on the internet at <code id="pricing-url-form">${urlForm.scheme}//&lt;subdomain&gt;--${viewer ? viewer.slug : html`&lt;account&gt;`}${urlForm.suffix}/mcp</code>. Every plan
includes governance; paid plans add scale and custom domains.</p>
${planCards()}
<p><a class="button" href="${viewer ? '/dashboard/billing' : '/signup'}">${viewer ? 'Change plan' : 'Start free'}</a></p>`,
  )
}
