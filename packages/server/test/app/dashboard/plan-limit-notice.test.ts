import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { planLimitNotice } from '../../../src/app/dashboard/plan-limit-notice.js'

describe('planLimitNotice', () => {
  it('links the message’s own upgrade phrase, once', () => {
    const notice = planLimitNotice(
      'the Free plan allows 2 tunnels and account "a" has 2; upgrade your plan or delete tunnels',
    ).toString()
    assert.equal(notice.match(/upgrade your plan/gi)?.length, 1, notice)
    assert.match(notice, /^The Free plan .*<a href="\/dashboard\/billing">upgrade your plan<\/a>/)
    assert.match(notice, /delete tunnels\.$/)
  })

  it('adds the link when the message has no upgrade phrase, and escapes the message', () => {
    const notice = planLimitNotice('no <b>room</b>').toString()
    assert.equal(
      notice,
      'No &lt;b&gt;room&lt;/b&gt;. <a href="/dashboard/billing">Upgrade your plan</a>.',
    )
  })
})
