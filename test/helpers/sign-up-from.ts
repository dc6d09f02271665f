/**
 * Signing up and asking for mail through burrowd's forms from a chosen client address (burrowd
 * trusts loopback's X-Forwarded-For), for tests of the mail allowances.
 */
import assert from 'node:assert/strict'

/** A session made by `signUpFrom`. */
export interface SignedUp {
  readonly cookie: string
  readonly csrf: string
  /** The notice the sign-up redirected to (`verify_deferred`: no link was mailed), or null. */
  readonly notice: string | null
}

/** The value of cookie `name` set by `res`, as a Cookie header entry. */
export function cookieOf(res: Response, name: string): string {
  const set = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))
  return set?.split(';', 1)[0] ?? ''
}

/** Sign up `email` from client address `ip`; returns the session and where it was sent. */
export async function signUpFrom(
  base: string,
  email: string,
  slug: string,
  ip: string,
  password = 'correct horse battery',
): Promise<SignedUp> {
  const headers = { 'x-forwarded-for': ip }
  const form = await fetch(`${base}/signup`, { headers })
  const formToken = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? ''
  const res = await fetch(`${base}/signup`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      ...headers,
      'content-type': 'application/x-www-form-urlencoded',
      cookie: cookieOf(form, 'burrow_form'),
    },
    body: new URLSearchParams({ _csrf: formToken, email, password, slug }),
  })
  assert.equal(res.status, 303, await res.text())
  const notice = new URL(res.headers.get('location') ?? '', base).searchParams.get('notice')
  const cookie = cookieOf(res, 'burrow_session')
  const dashboard = await fetch(`${base}/dashboard`, { headers: { ...headers, cookie } })
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await dashboard.text())?.[1] ?? ''
  return { cookie, csrf, notice }
}

/** Press "Send a new link" in `session` from `ip`; returns the notice it was sent to. */
export async function resendFrom(base: string, session: SignedUp, ip: string): Promise<string> {
  const res = await fetch(`${base}/dashboard/account/verify`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'x-forwarded-for': ip,
      'content-type': 'application/x-www-form-urlencoded',
      cookie: session.cookie,
    },
    body: new URLSearchParams({ _csrf: session.csrf }),
  })
  assert.equal(res.status, 303)
  return new URL(res.headers.get('location') ?? '', base).searchParams.get('notice') ?? ''
}

/** Ask for a reset link for `email` from `ip` through `/forgot`; returns the answer's status. */
export async function forgotFrom(base: string, email: string, ip: string): Promise<number> {
  const headers = { 'x-forwarded-for': ip }
  const form = await fetch(`${base}/forgot`, { headers })
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? ''
  const res = await fetch(`${base}/forgot`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      ...headers,
      'content-type': 'application/x-www-form-urlencoded',
      cookie: cookieOf(form, 'burrow_form'),
    },
    body: new URLSearchParams({ _csrf: csrf, email }),
  })
  await res.arrayBuffer()
  return res.status
}

/** Run `work` on each of `items`, `width` at a time (requests at once, as an attacker sends). */
export async function inParallel<T, R>(
  items: readonly T[],
  width: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = []
  for (let i = 0; i < items.length; i += width) {
    const batch = items.slice(i, i + width)
    results.push(...(await Promise.all(batch.map((item, j) => work(item, i + j)))))
  }
  return results
}
