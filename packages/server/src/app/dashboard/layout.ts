/**
 * The frame every dashboard and public page shares: head, top navigation (which depends on
 * whether someone is signed in) and notices. Pages pass their body as `SafeHtml`.
 */
import { html, type SafeHtml } from '../../http/html.js'

/** Who is looking at the page, for the navigation. */
export interface Viewer {
  readonly email: string
  readonly slug: string
  /** The session's CSRF token, for the sign-out form. */
  readonly csrfToken: string
  /** The account's address is not confirmed yet: show the banner that sends a new link. */
  readonly unverified?: boolean
  /** Where this browser reads the mail burrowd did not send (the dev outbox), if anywhere. */
  readonly outbox?: string | null
}

/** A notice shown above the page body. */
export interface Notice {
  readonly kind: 'error' | 'info' | 'warn'
  readonly text: string | SafeHtml
}

/** Options of `page`. */
export interface PageOptions {
  readonly title: string
  readonly viewer?: Viewer | null
  readonly notices?: readonly Notice[]
}

/** A whole HTML document. */
export function page(opts: PageOptions, body: SafeHtml): SafeHtml {
  const viewer = opts.viewer ?? null
  const nav = viewer
    ? html`<a href="/dashboard">Tunnels</a><a href="/dashboard/billing">Billing</a
        ><a href="/dashboard/tokens">API tokens</a><a href="/dashboard/webhooks">Webhooks</a
        ><a href="/dashboard/account">Account</a><a href="/pricing">Pricing</a>
        <form method="post" action="/signout">
          <input type="hidden" name="_csrf" value="${viewer.csrfToken}" />
          <span class="muted">${viewer.email}</span> <button type="submit">Sign out</button>
        </form>`
    : html`<a href="/pricing">Pricing</a><a href="/signin">Sign in</a><a href="/signup">Sign up</a>`
  const banner = viewer?.unverified
    ? html`<div class="banner" role="status" id="verify-banner">Please confirm your email address
        (<strong>${viewer.email}</strong>) with the link we sent: it is how you get back into
        this account if you forget your password.${outboxNote(viewer.outbox ?? null)}
        <form method="post" action="/dashboard/account/verify" class="inline">
          <input type="hidden" name="_csrf" value="${viewer.csrfToken}" />
          <button type="submit">Send a new link</button>
        </form></div>`
    : html``
  const notices = (opts.notices ?? []).map(
    (n) =>
      html`<div class="notice ${n.kind}" role="${n.kind === 'error' ? 'alert' : 'status'}">${n.text}</div>`,
  )
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${opts.title} · Burrow</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
<link rel="stylesheet" href="/assets/app.css" />
<script src="/assets/app.js" defer></script>
</head>
<body>
<header class="top"><a class="brand" href="${viewer ? '/dashboard' : '/'}">Burrow</a>${nav}</header>
<main>
${banner}
${notices}
${body}
</main>
</body>
</html>
`
}

/**
 * Where the link is when burrowd sends no mail (no SMTP server): the dev outbox, for a browser it
 * serves the outbox to; nothing otherwise.
 */
export function outboxNote(outbox: string | null): SafeHtml {
  return outbox === null
    ? html``
    : html` No mail server is configured (<code>BURROW_SMTP_URL</code>), so the mail is in the
        <a id="outbox-link" href="${outbox}">dev outbox</a>.`
}

/** A hidden CSRF field for a form. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}" />`
}
