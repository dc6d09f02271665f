/**
 * The pages of getting back into an account: asking for a reset link, the answer (the same
 * whether or not the address has an account), choosing a new password, and the outcome of an
 * email-verification link. The forms carry the pre-session CSRF token, as sign-in does.
 */
import { html, type SafeHtml } from '../../http/html.js'
import { outboxNote, page, type Notice, type Viewer } from './layout.js'

/** "Forgot your password?": the address to send a link to. */
export function forgotPage(
  formToken: string,
  email = '',
  notices: readonly Notice[] = [],
): SafeHtml {
  return page(
    { title: 'Reset your password', notices },
    html`<h1>Reset your password</h1>
<form method="post" action="/forgot" class="card">
  <input type="hidden" name="_csrf" value="${formToken}" />
  <label for="email">Email of your account</label>
  <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${email}" />
  <p><button type="submit">Email me a reset link</button></p>
</form>
<p><a href="/signin">Back to sign in</a></p>`,
  )
}

/** After asking: the same words for every address. */
export function forgotSentPage(outbox: string | null = null): SafeHtml {
  return page(
    { title: 'Check your email' },
    html`<h1>Check your email</h1>
<p id="reset-sent">If an account uses that address, we have sent it a link to choose a new
password. The link works once, for an hour. Nothing arrived? Check the spam folder, or
<a href="/forgot">ask again</a>.${outboxNote(outbox)}</p>`,
  )
}

/** The new-password form of a live reset link. */
export function resetPage(
  formToken: string,
  token: string,
  email: string,
  notices: readonly Notice[] = [],
): SafeHtml {
  return page(
    { title: 'Choose a new password', notices },
    html`<h1>Choose a new password</h1>
<p id="reset-account">For the Burrow account of <strong>${email}</strong>. Not your address?
Then someone else sent you this link: leave this page, since setting a password here signs you
in to their account.</p>
<form method="post" action="/reset" class="card">
  <input type="hidden" name="_csrf" value="${formToken}" />
  <input type="hidden" name="token" value="${token}" />
  <input type="email" name="username" autocomplete="username" value="${email}" readonly hidden />
  <label for="password">New password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required />
  <p class="muted">At least 8 characters; a few unrelated words make a good one. Every browser
  signed in to this account is signed out.</p>
  <p><button type="submit">Set password and sign in</button></p>
</form>`,
  )
}

/** A reset or verification link that does not work (any more). */
export function deadLinkPage(kind: 'reset' | 'verify'): SafeHtml {
  const next =
    kind === 'reset'
      ? html`<a href="/forgot">Ask for a new reset link</a>`
      : html`<a href="/dashboard">Sign in</a> and send a new one from the dashboard`
  return page(
    {
      title: 'Link not valid',
      notices: [{ kind: 'error', text: 'This link is not valid any more.' }],
    },
    html`<h1>This link does not work any more</h1>
<p>It was used already, it expired, or a newer one was sent. ${next}.</p>`,
  )
}

/** A verification link that worked. */
export function verifiedPage(email: string, viewer: Viewer | null = null): SafeHtml {
  return page(
    { title: 'Email confirmed', viewer },
    html`<h1>Email confirmed</h1>
<p id="verified">Thank you: <strong>${email}</strong> is confirmed as your account's address.</p>
<p><a href="/dashboard">Go to the dashboard</a></p>`,
  )
}

/**
 * A live verification link opened in a browser not signed in to its account (`otherAccount`:
 * signed in to another): the link confirms nothing until that account signs in; an owner of the
 * address who never signed up is pointed at the reset, which takes the account over.
 */
export function verifySignInPage(token: string, email: string, otherAccount: boolean): SafeHtml {
  const next = `/verify?token=${token}`
  const signIn = `/signin?next=${encodeURIComponent(next)}`
  const where = otherAccount
    ? html`This browser is signed in to another account; signing in to this one signs it out of that one.`
    : html`This browser is not signed in.`
  return page(
    { title: 'Confirm your email address' },
    html`<h1>Confirm your email address</h1>
<p id="verify-sign-in">This link confirms <strong>${email}</strong> as the address of a Burrow account, from a browser signed in to that account. ${where}</p>
<p><a class="button" id="verify-sign-in-link" href="${signIn}">Sign in to confirm</a></p>
<h2>You did not sign up for Burrow?</h2>
<p>Someone used your address. <a href="/forgot">Reset the password</a> of the account with a link sent to this address: you choose the password, and what the person who signed up made with it (API tokens, webhooks, tunnel keys, agents' access) stops working.</p>`,
  )
}

/** A tunnel whose key a reset replaced, as the page shows it. */
export interface NewTunnelKey {
  readonly name: string
  readonly key: string
}

/**
 * A reset that was the address's first proof: what was ended (an earlier holder's API tokens,
 * webhook endpoints, agent tokens and connected agents) and each tunnel's new key, shown once.
 */
export function recoveredPage(keys: readonly NewTunnelKey[]): SafeHtml {
  const rows = keys.map(
    (k, i) =>
      html`<tr><td>${k.name}</td><td><code class="key" id="key-${String(i)}">${k.key}</code> <button type="button" class="secondary" data-copy="key-${String(i)}">Copy</button></td></tr>`,
  )
  return page(
    {
      title: 'Password set',
      notices:
        keys.length > 0
          ? [{ kind: 'warn', text: 'Copy the keys now: they are shown only once.' }]
          : [],
    },
    html`<h1>Your new password is set</h1>
<p id="recovered">This address was not confirmed before, so someone else may have made or used
the account. Everything that worked without signing in was ended: API tokens, webhook endpoints,
the agent tokens, connected agents and custom domains of every tunnel, and every tunnel's key;
every tunnel's access is back to the default (agents sign in with OAuth). Every other browser was
signed out. Your address now counts as confirmed.</p>
${
  keys.length > 0
    ? html`<section class="card"><h2>New tunnel keys</h2>
<p>A client running with an old key was disconnected; start it again with the new one.</p>
<table id="new-keys"><thead><tr><th>Tunnel</th><th>Key</th></tr></thead><tbody>${rows}</tbody></table></section>`
    : ''
}
<p><a href="/dashboard">Go to the dashboard</a></p>`,
  )
}
