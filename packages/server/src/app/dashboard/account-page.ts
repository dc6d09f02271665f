/**
 * The account page (`GET /dashboard/account`): the address and whether it is confirmed, a form to
 * change the password (the current one is asked for), and one to sign out every other browser.
 */
import { html, type SafeHtml } from '../../http/html.js'
import { csrfField, page, type Notice, type Viewer } from './layout.js'

/** The account page. */
export function accountPage(viewer: Viewer, notices: readonly Notice[] = []): SafeHtml {
  const csrf = csrfField(viewer.csrfToken)
  const address = viewer.unverified
    ? html`<strong>${viewer.email}</strong> <span class="muted">(not confirmed yet)</span>`
    : html`<strong>${viewer.email}</strong>`
  return page(
    { title: 'Account', viewer, notices },
    html`<h1>Account</h1>
<p>Email address: ${address}</p>
<h2>Change your password</h2>
<form method="post" action="/dashboard/account/password" class="card" id="change-password">${csrf}
  <label for="current-password">Current password</label>
  <input id="current-password" name="current" type="password" autocomplete="current-password" required />
  <label for="new-password">New password</label>
  <input id="new-password" name="password" type="password" autocomplete="new-password" minlength="8" required />
  <p class="muted">At least 8 characters; a few unrelated words make a good one. Every other browser signed in to this account is signed out.</p>
  <p><button type="submit">Change password</button></p>
</form>
<h2>Other browsers</h2>
<form method="post" action="/dashboard/account/sign-out-others" class="card" id="sign-out-others" data-confirm="Sign out every other browser?">${csrf}
  <p>Sign out every browser signed in to this account except this one (a lost laptop, a shared computer). API tokens, tunnel keys and agents' access stay as they are.</p>
  <p><button type="submit" class="secondary">Sign out other browsers</button></p>
</form>`,
  )
}
