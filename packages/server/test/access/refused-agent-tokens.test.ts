/**
 * Agent tokens a `token` tunnel refused cost no second database read on the node: the gate
 * remembers refusals (bounded), never valid tokens, so a revoke holds at once. Run against the
 * real store (SQLite always, PostgreSQL when TEST_DATABASE_URL is set), its reads counted by a spy.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { AccessGate } from '../../src/access/access-gate.js'
import { RefusedAgentTokens } from '../../src/access/refused-agent-tokens.js'
import { AgentTokenStore } from '../../src/store/agent-token-store.js'
import { newSecret } from '../../src/store/random-token.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { TunnelAccessStore } from '../../src/store/tunnel-access-store.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

const guess = () => `Bearer atk_${newSecret()}`

for (const backend of testBackends()) {
  describe(`refused agent tokens on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tokens: AgentTokenStore
    let tunnelA: string
    let tunnelB: string
    let reads: number
    let refused: RefusedAgentTokens
    let gate: AccessGate
    /** While set, each read's answer waits for it (the read itself is done, and said so). */
    let hold: { until: Promise<void>; read: () => void } | null

    const check = (tunnelId: string, authorization: string) =>
      gate.check(tunnelId, 'http://a.localhost', '127.0.0.1', authorization)

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const accountId = (await store.createAccount({ email: 'a@example.com', slug: 'acme' })).id
      tunnelA = (await store.createTunnel({ accountId, name: 'a' })).tunnel.id
      tunnelB = (await store.createTunnel({ accountId, name: 'b' })).tunnel.id
      const settings = new TunnelAccessStore(store.db)
      await settings.set(tunnelA, { mode: 'token', allowIps: [] })
      await settings.set(tunnelB, { mode: 'token', allowIps: [] })
      tokens = new AgentTokenStore(store.db)
      reads = 0
      hold = null
      refused = new RefusedAgentTokens({ maxEntries: 64, maxPerTunnel: 16 })
      gate = new AccessGate({
        settings,
        agentTokens: {
          authenticate: async (tunnelId, secret) => {
            reads++
            const waiting = hold
            const found = await tokens.authenticate(tunnelId, secret)
            waiting?.read()
            await waiting?.until
            return found
          },
        },
        issuer: 'http://localhost',
        publicOrigin: (label) => `http://${label}.localhost`,
        refusedTokens: refused,
      })
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('reads a repeated wrong token once', async () => {
      const wrong = guess()
      for (let i = 0; i < 20; i++) assert.equal((await check(tunnelA, wrong)).ok, false)
      assert.equal(reads, 1)
      // The same secret on another tunnel is a lookup of its own.
      assert.equal((await check(tunnelB, wrong)).ok, false)
      assert.equal(reads, 2)
    })

    it('reads a wrong token sent many times at once once', async () => {
      const wrong = guess()
      const answers = await Promise.all(Array.from({ length: 50 }, () => check(tunnelA, wrong)))
      assert.ok(answers.every((a) => !a.ok))
      assert.equal(reads, 1)
    })

    it('stays bounded under many distinct guesses, and a valid token still works', async () => {
      const { secret } = await tokens.create(tunnelA, 'ci')
      for (let i = 0; i < 200; i++) assert.equal((await check(tunnelA, guess())).ok, false)
      assert.equal(refused.size, 16, 'one tunnel keeps at most its share')
      for (let i = 0; i < 200; i++) await check(tunnelB, guess())
      assert.ok(refused.size <= 64)
      const before = reads
      const ok = await check(tunnelA, `Bearer ${secret}`)
      assert.equal(ok.ok, true)
      assert.equal(ok.ok && ok.agent.kind, 'token')
      assert.equal((await check(tunnelA, `Bearer ${secret}`)).ok, true)
      assert.equal(reads, before + 2, 'a valid token is read every time')
      // Its secret on another tunnel is refused.
      assert.equal((await check(tunnelB, `Bearer ${secret}`)).ok, false)
    })

    it('refuses a revoked token at once, also while its lookups are under way', async () => {
      const { token, secret } = await tokens.create(tunnelA, 'ci')
      assert.equal((await check(tunnelA, `Bearer ${secret}`)).ok, true)
      const during = Promise.all(
        Array.from({ length: 10 }, () => check(tunnelA, `Bearer ${secret}`)),
      )
      await tokens.revoke(tunnelA, token.id)
      await during
      assert.equal((await check(tunnelA, `Bearer ${secret}`)).ok, false)
      // A request made after the revoke, while a read from before it is still under way, is
      // not answered by that read.
      const again = await tokens.create(tunnelA, 'again')
      let release: () => void = () => {}
      let read: () => void = () => {}
      const wasRead = new Promise<void>((resolve) => (read = resolve))
      hold = { until: new Promise((resolve) => (release = resolve)), read }
      const early = check(tunnelA, `Bearer ${again.secret}`)
      await wasRead
      await tokens.revoke(tunnelA, again.token.id)
      hold = null
      const late = check(tunnelA, `Bearer ${again.secret}`)
      release()
      assert.equal((await early).ok, true, 'read before the revoke')
      assert.equal((await late).ok, false, 'asked after the revoke')
      const readsAfter = reads
      assert.equal((await check(tunnelA, `Bearer ${secret}`)).ok, false)
      assert.equal(reads, readsAfter, 'its refusal is remembered')
    })

    it('takes no read for a malformed or oversized bearer', async () => {
      const before = reads
      assert.equal((await check(tunnelA, `Bearer ${'x'.repeat(5_000)}`)).ok, false)
      assert.equal((await check(tunnelA, 'Bearer atk_short')).ok, false)
      assert.equal((await check(tunnelA, 'Basic Zm9vOmJhcg==')).ok, false)
      assert.ok(reads - before <= 1, 'the short one may reach the store, which reads nothing')
    })
  })
}
