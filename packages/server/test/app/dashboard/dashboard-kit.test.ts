/**
 * Tests of the dashboard kit's cookies: over https it writes and reads the `__Host-` names only
 * (a plain `burrow_session` or `burrow_form`, which any host under the zone could set, is not
 * read), but for the device cookie, whose plain name a browser that signed in before the upgrade
 * still holds; over http the names stay plain.
 */
import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { describe, it } from 'node:test'
import { DashboardKit, type DashboardOptions } from '../../../src/app/dashboard/dashboard-kit.js'

const kitOver = (https: boolean) => new DashboardKit({ https } as DashboardOptions)
const carrying = (cookie: string) => ({ headers: { cookie } }) as unknown as IncomingMessage

describe('DashboardKit cookies', () => {
  it('over https: writes __Host- names, Secure', () => {
    const kit = kitOver(true)
    assert.equal(
      kit.cookie(kit.cookies.session, 's', 60),
      '__Host-burrow_session=s; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure',
    )
    assert.equal(kit.cookies.form, '__Host-burrow_form')
    assert.equal(kit.cookies.device, '__Host-burrow_device')
  })

  it('over https: reads the session and form tokens only under their __Host- names', () => {
    const kit = kitOver(true)
    const planted = carrying('burrow_session=theirs; burrow_form=theirs')
    assert.equal(kit.sessionCookie(planted), undefined)
    assert.equal(kit.formCookie(planted), undefined)
    const both = carrying('burrow_session=theirs; __Host-burrow_session=ours; __Host-burrow_form=f')
    assert.equal(kit.sessionCookie(both), 'ours')
    assert.equal(kit.formCookie(both), 'f')
  })

  it('over https: reads the device cookie under its plain name only when the __Host- one is absent', () => {
    const kit = kitOver(true)
    assert.equal(kit.deviceCookie(carrying('burrow_device=old')), 'old')
    assert.equal(kit.deviceCookie(carrying('burrow_device=old; __Host-burrow_device=new')), 'new')
  })

  it('over http: plain names, and no __Host- one is read', () => {
    const kit = kitOver(false)
    assert.equal(kit.cookies.session, 'burrow_session')
    assert.match(
      kit.cookie(kit.cookies.session, 's'),
      /^burrow_session=s; Path=\/; HttpOnly; SameSite=Lax$/,
    )
    const req = carrying('__Host-burrow_session=x; __Host-burrow_device=y; burrow_device=d')
    assert.equal(kit.sessionCookie(req), undefined)
    assert.equal(kit.deviceCookie(req), 'd')
  })
})
