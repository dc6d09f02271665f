/**
 * The account page's routes: change the password while signed in (the current one is checked
 * as a sign-in checks it: the same failure limits, the same lanes of password work), and sign
 * out every other browser. Both give this browser a new session and end every other session of
 * the account, the one this browser had too (a copy of its cookie is another browser); a
 * password change also voids its unused reset links.
 */
import { redirect } from '../../http/responses.js'
import { StoreError } from '../../store/store-error.js'
import { canonicalEmail } from '../../mail/email-address.js'
import { passwordProblem } from '../../store/password.js'
import { toHttpError } from '../store-error-status.js'
import { accountPage } from './account-page.js'
import { SESSION_COOKIE_SECS } from './dashboard-auth.js'
import type { DashboardKit, DashboardRequest, DashboardRoute } from './dashboard-kit.js'
import { DEVICE_COOKIE_SECS } from './sign-in-guard.js'
import { newPasswordSentence } from './as-sentence.js'

/** The answer when the node has as many password checks waiting as it takes. */
const BUSY = 'Too many password checks are in progress right now; try again in a few seconds.'

/** The routes under `/dashboard/account` (the verification link's is `verifyRoutes`). */
export function accountRoutes(kit: DashboardKit): DashboardRoute[] {
  const { svc } = kit
  const again = (c: DashboardRequest, status: number, text: string) =>
    kit.html(c.res, status, accountPage(c.viewer, [{ kind: 'error', text }]))

  /**
   * A new session for this browser (while the password is still `stamp`'s), every other one
   * ended, the one it replaces too: its cookie; null when the password changed meanwhile (a
   * reset, which signed every browser out).
   */
  const renewSession = async (c: DashboardRequest, stamp: string): Promise<string | null> => {
    let token: string
    try {
      token = (await svc.sessions.create(c.account.id, stamp)).token
    } catch (err) {
      if (err instanceof StoreError && err.code === 'unauthorized') return null
      throw err
    }
    await svc.sessions.deleteOthers(c.account.id, token)
    return kit.cookie(kit.cookies.session, token, SESSION_COOKIE_SECS)
  }
  /** Signed out here too: the password changed meanwhile. */
  const signedOut = (c: DashboardRequest) =>
    redirect(c.res, '/signin', { cookies: [kit.cookie(kit.cookies.session, '', 0)] })

  const show = (c: DashboardRequest) => {
    kit.html(c.res, 200, accountPage(c.viewer, kit.notices(c)))
    return Promise.resolve()
  }

  const changePassword = async (c: DashboardRequest) => {
    const form = await kit.form(c)
    const current = form.get('current') ?? ''
    const next = form.get('password') ?? ''
    const problem = passwordProblem(next)
    if (problem !== null) return again(c, 400, newPasswordSentence(problem))
    const email = c.account.email
    const guard = kit.opts.signInGuard
    // Each try costs two password hashes: it spends from the client address's attempts as a
    // sign-in does, so an owner of an account cannot hash without bound by changing its password.
    const limited = guard.attempt(kit.opts.addresses.rateKey(c.req))
    if (limited !== null) return again(c, 429, limited)
    const device = kit.deviceCookie(c.req)
    const stamp = await svc.accounts.passwordStamp(email)
    const check = guard.check(email, device, stamp)
    if (!check.ok) return again(c, 429, check.message)
    // A browser the account knows waits in its lane, as at sign-in; a session alone does not.
    const lane = check.device === null ? 'other' : 'known'
    const verified = await kit.passwordWork.run(
      lane,
      () => svc.accounts.verifyLogin(email, current),
      canonicalEmail(email),
    )
    if (verified === null) return again(c, 503, BUSY)
    if (verified.value?.id !== c.account.id) {
      // As a wrong password at sign-in: a stolen session cannot try passwords without bound.
      guard.failed(email, check.device, stamp)
      return again(c, 403, 'The current password is wrong.')
    }
    let newStamp: string
    try {
      // Only over the password just checked: a reset landing meanwhile is not overwritten.
      const set = await kit.passwordWork.run(
        lane,
        () => svc.accounts.setPassword(c.account.id, next, stamp),
        canonicalEmail(email),
      )
      if (set === null) return again(c, 503, BUSY)
      newStamp = set.value
    } catch (err) {
      const e = toHttpError(err)
      return again(c, e.status, e.message)
    }
    const session = await renewSession(c, newStamp)
    if (session === null) return signedOut(c)
    // This browser stays trusted for sign-ins under the new password.
    const trusted = kit.cookie(
      kit.cookies.device,
      guard.deviceCookie(email, check.device, newStamp),
      DEVICE_COOKIE_SECS,
    )
    redirect(c.res, '/dashboard/account?notice=password_changed', {
      status: 303,
      cookies: [session, trusted],
    })
  }

  const signOutOthers = async (c: DashboardRequest) => {
    await kit.form(c)
    const session = await renewSession(c, await svc.accounts.passwordStamp(c.account.email))
    if (session === null) return signedOut(c)
    redirect(c.res, '/dashboard/account?notice=signed_out_others', {
      status: 303,
      cookies: [session],
    })
  }

  return [
    { method: 'GET', pattern: /^\/dashboard\/account$/, handler: show },
    { method: 'POST', pattern: /^\/dashboard\/account\/password$/, handler: changePassword },
    {
      method: 'POST',
      pattern: /^\/dashboard\/account\/sign-out-others$/,
      handler: signOutOthers,
    },
  ]
}
