/**
 * The sign-up and sign-in pages. Both forms carry a pre-session CSRF token (a cookie and the same
 * value in a hidden field) because no session exists yet to hold one. The sign-up hint's URL
 * shows the account name as it is typed (the page's script, `assets.ts`).
 */
import { html, type SafeHtml } from '../../http/html.js'
import { page, type Notice } from './layout.js'

/** What a re-rendered form keeps of what the visitor typed (never the password). */
export interface AuthFormValues {
  readonly email?: string
  readonly slug?: string
}

/** How this service writes public URLs, around the `<subdomain>--<account>` label. */
export interface UrlForm {
  /** `http:` or `https:`. */
  readonly scheme: string
  /** What follows the label: `.localhost:7100`, `.tunnels.example.com`. */
  readonly suffix: string
}

/** The URL form of `publicUrl` (the service's own public-URL function). */
export function urlFormOf(publicUrl: (subdomain: string, slug: string) => string): UrlForm {
  const url = new URL(publicUrl('t', 'a'))
  return { scheme: url.protocol, suffix: url.host.slice('t--a'.length) }
}

/**
 * The slug rule as an HTML `pattern` (browsers compile it with the `v` flag, where a bare `-` in
 * a class is a syntax error): a-z and 0-9 with single inner hyphens, 1-40 characters.
 */
export const SLUG_PATTERN = '(?!.*--)[a-z0-9](?:[a-z0-9\\-]{0,38}[a-z0-9])?'

/** The sign-up page. */
export function signUpPage(
  formToken: string,
  urlForm: UrlForm,
  values: AuthFormValues = {},
  notices: readonly Notice[] = [],
): SafeHtml {
  return page(
    { title: 'Sign up', notices },
    html`<h1>Create your Burrow account</h1>
<form method="post" action="/signup" class="card">
  <input type="hidden" name="_csrf" value="${formToken}" />
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="email" required value="${values.email ?? ''}" />
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required />
  <label for="slug">Account name</label>
  <input id="slug" name="slug" type="text" required maxlength="40" pattern="${SLUG_PATTERN}" title="Lower-case letters, digits and single hyphens, starting and ending with a letter or digit (1-40 characters)" aria-describedby="slug-hint" value="${values.slug ?? ''}" />
  <p class="muted" id="slug-hint">Lower-case letters, digits and single hyphens. It appears in every public URL:
  <code id="url-form">${urlForm.scheme}//&lt;subdomain&gt;--<span id="url-form-slug">${values.slug || html`&lt;account&gt;`}</span>${urlForm.suffix}/mcp</code>
  <span id="slug-problem" class="problem" hidden>Not yet a valid account name: use lower-case letters, digits and single hyphens, starting and ending with a letter or digit.</span></p>
  <button type="submit">Sign up</button>
</form>
<p>Already have an account? <a href="/signin">Sign in</a></p>`,
  )
}

/** The sign-in page. */
export function signInPage(
  formToken: string,
  values: AuthFormValues = {},
  notices: readonly Notice[] = [],
  next: string | null = null,
): SafeHtml {
  return page(
    { title: 'Sign in', notices },
    html`<h1>Sign in</h1>
<form method="post" action="/signin" class="card">
  <input type="hidden" name="_csrf" value="${formToken}" />
  ${next === null ? '' : html`<input type="hidden" name="next" value="${next}" />`}
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="email" required value="${values.email ?? ''}" />
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required />
  <p><button type="submit">Sign in</button> <a href="/forgot">Forgot your password?</a></p>
</form>
<p>New to Burrow? <a href="/signup">Create an account</a></p>`,
  )
}

/** The landing page for visitors who are not signed in. */
export function landingPage(urlForm: UrlForm): SafeHtml {
  return page(
    { title: 'Put a local MCP server on the internet' },
    html`<h1>Put a local MCP server on the internet</h1>
<p id="what">Burrow gives an MCP server that runs on your machine (over stdio or local HTTP) a
public URL that AI agents anywhere can use, such as
<code>${urlForm.scheme}//files--you${urlForm.suffix}/mcp</code>. The <code>burrow</code>
client connects out to Burrow, so there is no port to open and no server to deploy. You see
every tool call, decide which tools agents may use, redact secrets, and get alerts when a
server's tools change.</p>
<h2>Three steps</h2>
<ol class="steps" id="steps">
  <li><a href="/signup">Create an account</a> and a tunnel in the dashboard; it shows the tunnel's key once.</li>
  <li>Run <code>burrow up --stdio "your-mcp-server"</code> (or <code>--upstream http://127.0.0.1:3000/mcp</code>) next to your server, with the key in <code>BURROW_API_KEY</code>.</li>
  <li>Give agents the tunnel's URL: <code>burrow up</code> prints the snippet for Claude Desktop, Cursor and others.</li>
</ol>
<p>Free covers 2 tunnels with 3 sessions in use at once each; Pro and Scale add more tunnels,
sessions, volume and history. <a href="/pricing" id="pricing-link">See pricing</a></p>
<p><a class="button" href="/signup">Sign up free</a> <a href="/signin">Sign in</a></p>`,
  )
}
