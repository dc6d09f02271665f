/**
 * The policy store on SQLite always and PostgreSQL when TEST_DATABASE_URL is set: the default
 * policy until one is written, versions numbered from 1 and listed newest first, invalid
 * documents refused with the field at fault and nothing stored, concurrent writes each getting
 * their own version, a corrupt stored document falling back to the default, and the compiled
 * governance cached until the policy changes here or the cache's time is up.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { POLICY_LIMITS } from '../../src/governance/parse-policy.js'
import { Policies, POLICY_WRITES_PER_MINUTE } from '../../src/governance/policies.js'
import { DEFAULT_POLICY, policyDocument } from '../../src/governance/policy.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const START = Date.parse('2026-04-01T10:00:00.000Z')

const DENY_SHELL = {
  tools: { allow: ['*'], deny: ['shell_*'] },
  rate_limits: [{ tool: 'search', limit: 10, per_seconds: 60 }],
}

for (const backend of testBackends()) {
  describe(`policies on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnelId: string
    let clock: number
    let errors: string[]
    let policies: Policies

    const open = (events = new LocalClusterEvents()) =>
      new Policies({
        store: store.policies,
        events,
        log: createLogger('error', (line) => errors.push(line)),
        ttlMs: 5000,
        now: () => clock,
      })

    beforeEach(async () => {
      clock = START
      errors = []
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'p@example.com', slug: 'policies' })
      tunnelId = (await store.createTunnel({ accountId: account.id, name: 'p' })).tunnel.id
      policies = open()
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('reads the default policy, version 0, until one is written', async () => {
      const view = await policies.read(tunnelId)
      assert.deepEqual(view, {
        document: policyDocument(DEFAULT_POLICY),
        version: 0,
        updatedAt: null,
        updatedBy: null,
      })
      assert.deepEqual(await policies.versions(tunnelId), [])
      const governance = await policies.governance(tunnelId)
      assert.equal(governance.version, 0)
      assert.equal(governance.tools.allows('anything'), true)
    })

    it('stores a document whole, with missing sections as their defaults, and versions it', async () => {
      const first = await policies.write(tunnelId, DENY_SHELL, 'owner@example.com')
      assert.ok(first.ok)
      assert.equal(first.view.version, 1)
      assert.equal(first.view.updatedAt, new Date(START).toISOString())
      assert.equal(first.view.updatedBy, 'owner@example.com')
      const expected = {
        ...policyDocument(DEFAULT_POLICY),
        tools: { allow: ['*'], deny: ['shell_*'] },
        rate_limits: [{ tool: 'search', limit: 10, per_seconds: 60 }],
      }
      assert.deepEqual(first.view.document, expected)
      assert.deepEqual(await policies.read(tunnelId), first.view)

      clock += 60_000
      const second = await policies.write(tunnelId, { zero_knowledge: true }, 'api:tok_1')
      assert.ok(second.ok)
      assert.equal(second.view.version, 2)
      const read = await policies.read(tunnelId)
      assert.equal(read.version, 2)
      assert.equal(read.document.zero_knowledge, true)
      assert.deepEqual(read.document.tools, { allow: ['*'], deny: [] }, 'a write replaces, whole')

      const versions = await policies.versions(tunnelId)
      assert.deepEqual(
        versions.map((v) => [v.version, v.changedBy, v.changedAt]),
        [
          [2, 'api:tok_1', new Date(START + 60_000).toISOString()],
          [1, 'owner@example.com', new Date(START).toISOString()],
        ],
      )
      assert.deepEqual(JSON.parse(versions[1]!.document), expected)
    })

    it('refuses invalid documents with the field at fault, storing nothing', async () => {
      const cases: [unknown, string][] = [
        [null, 'policy'],
        [[DENY_SHELL], 'policy'],
        ['{"tools":{}}', 'policy'],
        [{ tools: { allow: ['*'] }, owner: 'me' }, 'owner'],
        [{ tools: { allow: '*' } }, 'tools.allow'],
        [{ tools: { deny: ['ok', 'bad[glob'] } }, 'tools.deny[1]'],
        [{ tools: { allow: ['x'.repeat(POLICY_LIMITS.globChars + 1)] } }, 'tools.allow[0]'],
        [
          { tools: { allow: Array.from({ length: POLICY_LIMITS.globs + 1 }, () => 'a') } },
          'tools.allow',
        ],
        [
          { rate_limits: [DENY_SHELL.rate_limits[0], { tool: 'a', limit: 0, per_seconds: 1 }] },
          'rate_limits[1].limit',
        ],
        [{ rate_limits: [{ tool: 'a', method: 'b', limit: 1, per_seconds: 1 }] }, 'rate_limits[0]'],
        [
          { rate_limits: [{ tool: 'a', limit: 1, per_seconds: 1.5 }] },
          'rate_limits[0].per_seconds',
        ],
        [{ redaction: { patterns: ['(unclosed'] } }, 'redaction.patterns[0]'],
        [{ redaction: { patterns: ['(?P<name>x)'] } }, 'redaction.patterns[0]'],
        [{ redaction: { detect_secrets: 'yes' } }, 'redaction.detect_secrets'],
        [{ zero_knowledge: 1 }, 'zero_knowledge'],
        [{ rug_pull: { mode: 'block' } }, 'rug_pull.mode'],
      ]
      for (const [value, field] of cases) {
        const result = await policies.write(tunnelId, value, 'owner@example.com')
        assert.equal(result.ok, false, `accepted ${JSON.stringify(value).slice(0, 80)}`)
        if (!result.ok) {
          assert.equal(result.problem.field, field, result.problem.message)
          assert.ok(result.problem.message.length > 0)
        }
      }
      assert.equal((await policies.read(tunnelId)).version, 0)
      assert.deepEqual(await policies.versions(tunnelId), [])
    })

    it('an invalid write after a valid one leaves the valid one in force', async () => {
      assert.ok((await policies.write(tunnelId, DENY_SHELL, 'owner@example.com')).ok)
      const refused = await policies.write(tunnelId, { tools: { deny: [7] } }, 'owner@example.com')
      assert.equal(refused.ok, false)
      assert.equal((await policies.read(tunnelId)).version, 1)
      assert.equal((await policies.governance(tunnelId)).tools.allows('shell_exec'), false)
    })

    it('gives concurrent writes a version each', async () => {
      const writes = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          policies.write(tunnelId, { tools: { deny: [`tool_${i}`] } }, `writer-${i}`),
        ),
      )
      const numbers = writes.map((w) => (w.ok ? w.view.version : -1)).sort((a, b) => a - b)
      assert.deepEqual(numbers, [1, 2, 3, 4, 5, 6, 7, 8])
      const versions = await policies.versions(tunnelId)
      assert.deepEqual(
        versions.map((v) => v.version),
        [8, 7, 6, 5, 4, 3, 2, 1],
      )
      // The current document is the one whose write took the last version.
      const last = writes.find((w) => w.ok && w.view.version === 8)
      assert.ok(last?.ok)
      assert.deepEqual((await policies.read(tunnelId)).document, last.view.document)
    })

    it('limits writes per tunnel, and keeps the newest 100 versions', async () => {
      const write = (i: number, id = tunnelId) =>
        policies.write(id, { tools: { deny: [`tool_${i}`] } }, 'loop')
      for (let i = 1; i <= POLICY_WRITES_PER_MINUTE; i++) assert.equal((await write(i)).ok, true)
      const refused = await write(0)
      assert.ok(!refused.ok)
      assert.equal(refused.retryAfterSecs, 2)
      assert.match(refused.problem.message, /changed 30 times in the last minute; try again in 2 s/)
      assert.deepEqual((await policies.read(tunnelId)).document.tools, {
        allow: ['*'],
        deny: [`tool_${POLICY_WRITES_PER_MINUTE}`],
      })
      // Another tunnel has its own allowance.
      const account = await store.createAccount({ email: 'q@example.com', slug: 'other' })
      const other = (await store.createTunnel({ accountId: account.id, name: 'q' })).tunnel.id
      assert.equal((await write(1, other)).ok, true)
      // Over time, only the newest versions stay.
      for (let i = POLICY_WRITES_PER_MINUTE + 1; i <= 130; i++) {
        clock += 2_000
        assert.equal((await write(i)).ok, true)
      }
      const versions = await store.policies.versions(tunnelId, 1000)
      assert.equal(versions.length, 100)
      assert.equal(versions[0]!.version, 130)
      assert.equal(versions.at(-1)!.version, 31)
    })

    it('applies a write on this node to the next request at once', async () => {
      assert.equal((await policies.governance(tunnelId)).tools.allows('shell_exec'), true)
      assert.ok((await policies.write(tunnelId, DENY_SHELL, 'owner@example.com')).ok)
      const governance = await policies.governance(tunnelId)
      assert.equal(governance.version, 1)
      assert.equal(governance.tools.allows('shell_exec'), false)
      assert.equal(governance.tools.allows('search'), true)
    })

    it('sees a change made where no event reaches it once its cache time is up', async () => {
      assert.equal((await policies.governance(tunnelId)).version, 0)
      // Another node, whose cluster events do not reach this one.
      const elsewhere = open()
      assert.ok((await elsewhere.write(tunnelId, DENY_SHELL, 'owner@example.com')).ok)
      clock += 4999
      assert.equal((await policies.governance(tunnelId)).version, 0, 'cached for the ttl')
      clock += 1
      assert.equal((await policies.governance(tunnelId)).version, 1)
    })

    it('keeps what it compiled when the policy read again at its cache time is unchanged', async () => {
      // Reading it again compiled every glob and pattern anew every 5 s of a busy tunnel (found
      // by a hostile review): the same version is the same document.
      assert.ok((await policies.write(tunnelId, DENY_SHELL, 'owner@example.com')).ok)
      const first = await policies.governance(tunnelId)
      clock += 5000
      assert.equal(policies.cachedGovernance(tunnelId), undefined, 'read again')
      assert.equal(await policies.governance(tunnelId), first)
      assert.ok((await open().write(tunnelId, {}, 'owner@example.com')).ok)
      clock += 5000
      const changed = await policies.governance(tunnelId)
      assert.equal(changed.version, 2)
      assert.notEqual(changed, first)
      assert.equal(changed.tools.allows('shell_exec'), true)
    })

    it('drops what it cached when a cluster event says the tunnel changed', async () => {
      const events = new LocalClusterEvents()
      const here = open(events)
      assert.equal((await here.governance(tunnelId)).version, 0)
      assert.ok((await open().write(tunnelId, DENY_SHELL, 'owner@example.com')).ok)
      assert.equal((await here.governance(tunnelId)).version, 0)
      await events.publish({ type: 'tunnel', tunnelId })
      assert.equal((await here.governance(tunnelId)).version, 1)
    })

    it('falls back to the default for a stored document that is corrupt, and says so', async () => {
      await store.policies.set(tunnelId, '{"tools": ', 'someone', new Date(START))
      const view = await policies.read(tunnelId)
      assert.equal(view.version, 1)
      assert.deepEqual(view.document, policyDocument(DEFAULT_POLICY))
      assert.equal((await policies.governance(tunnelId)).tools.allows('shell_exec'), true)
      assert.ok(
        errors.some((line) => line.includes(tunnelId) && /not JSON/.test(line)),
        errors.join('\n'),
      )

      errors.length = 0
      await store.policies.set(tunnelId, '{"tools":{"allow":"*"}}', 'someone', new Date(START))
      policies.invalidate(tunnelId)
      assert.deepEqual((await policies.read(tunnelId)).document, policyDocument(DEFAULT_POLICY))
      assert.ok(
        errors.some((line) => line.includes('tools.allow')),
        errors.join('\n'),
      )
    })

    it('keeps tunnels apart', async () => {
      const account = await store.createAccount({ email: 'q@example.com', slug: 'other' })
      const other = (await store.createTunnel({ accountId: account.id, name: 'q' })).tunnel.id
      assert.ok((await policies.write(tunnelId, DENY_SHELL, 'owner@example.com')).ok)
      assert.equal((await policies.read(other)).version, 0)
      assert.deepEqual(await policies.versions(other), [])
      assert.equal((await policies.governance(other)).tools.allows('shell_exec'), true)
    })
  })
}
