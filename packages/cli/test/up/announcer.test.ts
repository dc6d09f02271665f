// What `up` prints as WELCOMEs and NOTICEs arrive: the announcement once per fresh session, a
// changed access once per change, resumed or live, and nothing for the same mode again.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import type { Welcome } from '@burrow/protocol'
import { announcer } from '../../src/up/announcer.js'

const url = 'http://localhost:7100/dashboard/tunnels/tun_1/access'
const welcome = (mode: string | null, resumed = false): Welcome => ({
  version: 1,
  tunnelId: 'tun_1',
  publicUrl: 'http://a--b.localhost:7100',
  resumeToken: 'r',
  resumed,
  graceSecs: 30,
  heartbeatMs: 15000,
  ...(mode === null ? {} : { access: { mode, url } }),
})

function printed() {
  const out: string[] = []
  const a = announcer(
    (t) => out.push(t),
    () => 'stdio: s',
    null,
    { info: () => {} },
  )
  return { out, a }
}

it('announces a fresh session, then tells each change of mode once, live or on resume', () => {
  const { out, a } = printed()
  a.onWelcome(welcome('oauth'))
  assert.equal(out.length, 1)
  assert.match(out[0]!, /Tunnel online:[\s\S]*sign in with OAuth[\s\S]*"mcpServers"/)
  a.onNotice({ access: { mode: 'oauth', url } })
  a.onNotice({})
  a.onWelcome(welcome('oauth', true))
  assert.equal(out.length, 1, 'the same mode, or nothing about it, prints nothing')
  a.onNotice({ access: { mode: 'token', url } })
  assert.equal(out.length, 2)
  assert.match(out[1]!, /The tunnel's access changed: agents that send an agent token/)
  assert.doesNotMatch(out[1]!, /mcpServers|Tunnel online/)
  // Changed while the client was away: the resumed WELCOME says so, without the snippet.
  a.onWelcome(welcome('public', true))
  assert.equal(out.length, 3)
  assert.match(out[2]!, /The tunnel's access changed: anyone with the URL/)
  assert.doesNotMatch(out[2]!, /mcpServers/)
  // A fresh session (the grace period ended) prints the whole announcement again.
  a.onWelcome(welcome('token'))
  assert.equal(out.length, 4)
  assert.match(out[3]!, /Tunnel online:[\s\S]*"Bearer atk_…"/)
})

it('a broker that said nothing, upgraded while the client was away: its mode, not a "change"', () => {
  const { out, a } = printed()
  a.onWelcome(welcome(null))
  assert.match(out[0]!, /If agents get 401/)
  a.onWelcome(welcome('token', true))
  assert.equal(out.length, 2)
  assert.doesNotMatch(out[1]!, /changed/)
  assert.match(out[1]!, /Who may call: +agents that send an agent token/)
})

it('a NOTICE before any WELCOME prints nothing', () => {
  const { out, a } = printed()
  a.onNotice({ access: { mode: 'token', url } })
  assert.deepEqual(out, [])
})

it('a broker that said nothing, upgraded while away, now saying public: nothing printed, not blank lines', () => {
  const { out, a } = printed()
  a.onWelcome(welcome(null))
  a.onWelcome(welcome('public', true))
  assert.deepEqual(out.slice(1), [])
  // Its mode is known from then on: a change from public is a change.
  a.onNotice({ access: { mode: 'token', url } })
  assert.equal(out.length, 2)
  assert.match(out[1]!, /The tunnel's access changed: agents that send an agent token/)
})
