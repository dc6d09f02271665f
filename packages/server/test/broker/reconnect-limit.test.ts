/**
 * A tunnel client that reconnects in a loop with its valid key (a hostile client, or a broken
 * one): each connection costs a key lookup, the tunnel's "seen" writes and, with several nodes, a
 * claim every node hears of. Past the key's allowance the upgrade is refused 429 with Retry-After
 * before any lookup or 101; other keys connect as before. The real built burrowd (`npx tsc -b`).
 */
import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { ERROR_HEADER } from '@burrow/protocol'
import { connectFake } from '../../../../test/helpers/fake-client.js'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { CONNECTIONS_PER_KEY } from '../../src/broker/reconnect-limit.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
import { rawUpgrade, type UpgradeOutcome } from '../helpers/raw-upgrade.js'

let service: Service

before(async () => {
  service = await startService({}, { plan: 'scale' })
})

after(async () => {
  await service?.close()
})

it('refuses a key that reconnects in a loop with 429 before the 101; other keys connect', async () => {
  const { key } = await service.tunnel('reconnects')
  const outcomes: UpgradeOutcome[] = []
  for (let i = 0; i < CONNECTIONS_PER_KEY + 10; i++) {
    const outcome = await rawUpgrade(service.port, { authorization: `Bearer ${key}` })
    outcomes.push(outcome)
    if (outcome.kind === 'response') break
  }
  // The allowance is spent by connections that were made, one each.
  for (const outcome of outcomes.slice(0, CONNECTIONS_PER_KEY))
    assert.deepEqual(outcome, { kind: 'upgrade', status: 101 })
  const refused = outcomes.at(-1)!
  assert.equal(refused.kind, 'response', 'a key reconnecting in a loop was never refused')
  assert.equal(refused.headers[ERROR_HEADER], 'rate_limited')
  assert.match(String(refused.headers['retry-after']), /^[1-9][0-9]*$/)
  assertRefusal(refused, { policy: 'rate_limited', reason: /connected .* times/ })

  // Another tunnel's client, from the same address, is not held back.
  const other = await service.tunnel('neighbour')
  const client = await connectFake(service.broker, other.key)
  await client.close()
})
