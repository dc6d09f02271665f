// A dashboard user for tests: signs up through the real forms (form cookie and CSRF token as a
// browser would send them), keeps the session cookie, and makes an API token for JSON calls.
import assert from 'node:assert/strict'

/** A signed-in dashboard user. */
export interface WebUser {
  readonly base: string
  readonly slug: string
  /** `burrow_session=…`, for a Cookie header. */
  readonly cookie: string
  /** The session's CSRF token, as the dashboard's forms carry it. */
  readonly csrf: string
  /** Bearer API token made in the dashboard. */
  readonly token: string
  /** A JSON API call with the token. */
  api<T = { error?: { code: string; message: string } }>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: T }>
  /** A dashboard form post with the session and its CSRF token (unless `csrf` is given). */
  form(path: string, fields: Record<string, string>, csrf?: string): Promise<Response>
  /** A dashboard page with the session. */
  page(path: string): Promise<Response>
}

function cookieOf(res: Response, name: string): string {
  const found = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))
  assert.ok(found, `no ${name} cookie in ${res.status} ${res.url}`)
  return found.split(';', 1)[0] ?? ''
}

function hidden(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]+)"`).exec(html)
  assert.ok(m?.[1], `no ${name} field in the page`)
  return m[1]
}

/** Sign up `slug` on the service at `base` and make an API token. */
export async function signUp(
  base: string,
  slug: string,
  password = 'correct horse battery',
): Promise<WebUser> {
  const formPage = await fetch(`${base}/signup`)
  const formCookie = cookieOf(formPage, 'burrow_form')
  const formToken = hidden(await formPage.text(), '_csrf')
  const res = await fetch(`${base}/signup`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: formCookie },
    body: new URLSearchParams({ _csrf: formToken, email: `${slug}@example.com`, password, slug }),
  })
  assert.equal(res.status, 303, await res.text())
  const cookie = cookieOf(res, 'burrow_session')
  const dashboard = await fetch(`${base}/dashboard`, { headers: { cookie } })
  const csrf = hidden(await dashboard.text(), '_csrf')
  const form = (path: string, fields: Record<string, string>, token = csrf) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: token, ...fields }),
    })
  const made = await form('/dashboard/tokens', { name: 'tests' })
  assert.equal(made.status, 201)
  const token = /id="token-secret">([^<]+)</.exec(await made.text())?.[1] ?? ''
  assert.match(token, /^btk_/)
  return {
    base,
    slug,
    cookie,
    csrf,
    token,
    form,
    page: (path) => fetch(`${base}${path}`, { headers: { cookie }, redirect: 'manual' }),
    api: bearerApi(base, token),
  }
}

/** Sign in to `email` at `base` through the real form: the `burrow_session=…` cookie. */
export async function signIn(base: string, email: string, password: string): Promise<string> {
  const formPage = await fetch(`${base}/signin`)
  const formCookie = cookieOf(formPage, 'burrow_form')
  const formToken = hidden(await formPage.text(), '_csrf')
  const res = await fetch(`${base}/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: formCookie },
    body: new URLSearchParams({ _csrf: formToken, email, password }),
  })
  assert.equal(res.status, 303, await res.text())
  return cookieOf(res, 'burrow_session')
}

/** Calls of burrowd's JSON API at `base` with API token `token`: status and parsed body. */
export function bearerApi(base: string, token: string) {
  return async <T>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
    const text = await res.text()
    return { status: res.status, json: (text ? JSON.parse(text) : undefined) as T }
  }
}

/**
 * A form post from a browser at `address` (as the TLS proxy on loopback reports it): the form
 * page first, for its cookie and CSRF token, then the post.
 */
export async function formPost(
  base: string,
  path: string,
  fields: Record<string, string>,
  address: string,
  cookies: readonly string[] = [],
  formPath: string = path,
): Promise<Response> {
  const page = await fetch(`${base}${formPath}`, { headers: { 'x-forwarded-for': address } })
  const formCookie = (page.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? ''
  const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? ''
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: [formCookie, ...cookies].join('; '),
      'x-forwarded-for': address,
    },
    body: new URLSearchParams({ _csrf: token, ...fields }),
  })
}

/**
 * Until `user`'s API token `tokenId` was used: a request held after its head (`heldRequest`) was
 * authenticated, so a revocation now comes between its head and its body.
 */
export async function untilTokenUsed(user: WebUser, tokenId: string): Promise<void> {
  for (;;) {
    const listed = await user.api<{ tokens: { id: string; last_used_at: string | null }[] }>(
      'GET',
      '/api/tokens',
    )
    if (listed.json.tokens.find((t) => t.id === tokenId)?.last_used_at) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
