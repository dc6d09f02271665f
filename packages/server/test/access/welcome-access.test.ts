// The access a connecting client is told: noted with the key lookup, read again on a change, and
// never an older read's answer after a newer one, nor a guess when the settings cannot be read.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { WelcomeAccess } from '../../src/access/welcome-access.js'
import type { TunnelWithAccount } from '../../src/store/store.js'
import type { TunnelAccess } from '../../src/store/tunnel-access-row.js'

const tunnel = { id: 'tun_1' } as TunnelWithAccount
const urlOf = (id: string) => `http://localhost:7100/dashboard/tunnels/${id}/access`

it('notes the mode with the key lookup and answers it with the Access tab', async () => {
  const w = new WelcomeAccess(urlOf, silentLogger)
  assert.equal(await w.note(undefined), undefined)
  assert.equal(await w.note(tunnel), tunnel, 'nothing to read from yet: the tunnel passes through')
  assert.equal(w.noteFor(tunnel), undefined)
  w.use(async () => ({ mode: 'token', allowIps: [] }))
  await w.note(tunnel)
  assert.deepEqual(w.noteFor(tunnel), { mode: 'token', url: urlOf('tun_1') })
})

it('a read overtaken by a later one tells nothing; the later one wins', async () => {
  const w = new WelcomeAccess(urlOf, silentLogger)
  const answers: ((a: TunnelAccess) => void)[] = []
  w.use(() => new Promise((resolve) => answers.push(resolve)))
  const first = w.refresh('tun_1')
  const second = w.refresh('tun_1')
  answers[1]!({ mode: 'public', allowIps: [] })
  answers[0]!({ mode: 'oauth', allowIps: [] })
  assert.deepEqual(await second, { mode: 'public', url: urlOf('tun_1') })
  assert.equal(await first, undefined)
  assert.equal(w.noteFor(tunnel)?.mode, 'public')
})

it('a read that fails forgets the mode rather than telling an old one', async () => {
  const w = new WelcomeAccess(urlOf, silentLogger)
  let fail = false
  w.use(async () => {
    if (fail) throw new Error('database gone')
    return { mode: 'oauth', allowIps: [] }
  })
  await w.refresh('tun_1')
  fail = true
  assert.equal(await w.refresh('tun_1'), undefined)
  assert.equal(w.noteFor(tunnel), undefined)
})
