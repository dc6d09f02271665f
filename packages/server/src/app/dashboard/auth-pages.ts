/**
 * The sign-up and sign-in pages. Both forms carry a pre-session CSRF token (a cookie and the same
 * value in a hidden field) because no session exists yet to hold one.
 */
import { html, type SafeHtml } from '../../http/html.js'
import { page, type Notice } from './layout.js'

/** What a re-rendered form keeps of what the visitor typed (never the password). */
export interface AuthFormValues {
  readonly email?: string
  readonly slug?: string
}

/** The sign-up page. */
export function signUpPage(
  formToken: string,
  zone: string,
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
  <input id="slug" name="slug" type="text" required pattern="[a-z0-9-]{1,40}" value="${values.slug ?? ''}" />
  <p class="muted">Lower-case letters, digits and single hyphens. It appears in every public URL:
  <code>https://&lt;tunnel&gt;--<span>${values.slug || 'account'}</span>.${zone}/mcp</code></p>
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
): SafeHtml {
  return page(
    { title: 'Sign in', notices },
    html`<h1>Sign in</h1>
<form method="post" action="/signin" class="card">
  <input type="hidden" name="_csrf" value="${formToken}" />
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
export function landingPage(): SafeHtml {
  return page(
    { title: 'Put a local MCP server on the internet' },
    html`<h1>Put a local MCP server on the internet</h1>
<p>Run <code>burrow up</code> next to your MCP server and agents anywhere reach it at
<code>https://&lt;tunnel&gt;--&lt;account&gt;.&lt;zone&gt;/mcp</code>, with quotas, governance and usage you can see.</p>
<p><a class="button" href="/signup">Sign up free</a> <a href="/pricing">See pricing</a></p>`,
  )
}
