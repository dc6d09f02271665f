/**
 * The public pricing page (`GET /pricing`), no sign-in needed; rendered from the plan catalog.
 */
import { html, type SafeHtml } from '../../http/html.js'
import { page, type Viewer } from './layout.js'
import { planCards } from './plan-cards.js'

/** The pricing page. */
export function pricingPage(viewer: Viewer | null): SafeHtml {
  return page(
    { title: 'Pricing', viewer },
    html`<h1>Pricing</h1>
<p>Put a local MCP server on the internet at <code>https://&lt;name&gt;--&lt;account&gt;.&lt;zone&gt;/mcp</code>. Every plan
includes governance; paid plans add scale and custom domains.</p>
${planCards()}
<p><a class="button" href="${viewer ? '/dashboard/billing' : '/signup'}">${viewer ? 'Change plan' : 'Start free'}</a></p>`,
  )
}
