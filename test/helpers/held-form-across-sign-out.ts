// A dashboard form whose body is held back while its browser signs out: for what a change does
// when its session ends between its head's authentication and its body.
import assert from 'node:assert/strict'
import { heldRequest } from './raw-http.js'
import { signIn } from './web-client.js'

/** Where and as whom the form is sent. */
export interface HeldForm {
  readonly base: string
  readonly port: number
  readonly email: string
  readonly password: string
  readonly path: string
  readonly fields: Record<string, string>
  /** Run after each attempt, whichever came first: that nothing changed. */
  check(): Promise<void>
}

/**
 * Sign in, send the form's head, sign out, then send its body; the answer's status. Nothing
 * outside burrowd shows when the held head was authenticated: a sign-out handled first gets the
 * form answered 303 to /signin, a refusal too but not the one under test, so a new session tries
 * again, up to five times.
 */
export async function heldFormAcrossSignOut(form: HeldForm): Promise<number> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const cookie = await signIn(form.base, form.email, form.password)
    const page = await fetch(`${form.base}/dashboard`, { headers: { cookie } })
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? ''
    assert.ok(csrf, 'no CSRF token on the dashboard')
    const headers = { cookie, 'content-type': 'application/x-www-form-urlencoded' }
    const sending = await heldRequest(
      form.port,
      'POST',
      form.path,
      headers,
      new URLSearchParams({ _csrf: csrf, ...form.fields }).toString(),
    )
    const out = await fetch(`${form.base}/signout`, {
      method: 'POST',
      redirect: 'manual',
      headers,
      body: new URLSearchParams({ _csrf: csrf }),
    })
    assert.ok(out.status === 302 || out.status === 303, String(out.status))
    const status = await sending()
    await form.check()
    if (status !== 303) return status
  }
  assert.fail('every held form was authenticated after its sign-out')
}
