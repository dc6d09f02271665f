/**
 * Property tests of the refused agent tokens a node remembers (refused-agent-tokens.ts): the
 * bounded cache behaves as a least-recently-presented list bounded in all and per tunnel, and
 * across two nodes sharing one token table, whatever the order of tokens made, revoked and
 * presented (a refused guess, a token made afterwards, a revoked one presented again), the gate's
 * answer is the table's: a token made is never refused, a revoked one never admitted. Fixed seeds.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { AccessGate } from '../../src/access/access-gate.js'
import { RefusedAgentTokens } from '../../src/access/refused-agent-tokens.js'
import type { AgentToken } from '../../src/store/agent-token-store.js'
import type { TunnelAccess } from '../../src/store/tunnel-access-row.js'

const TUNNELS = ['t1', 't2', 't3']
const SECRETS = ['a', 'b', 'c', 'd', 'e', 'f']

describe('RefusedAgentTokens (property)', () => {
  it('is a least-recently-presented list, bounded in all and per tunnel', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.tuple(fc.boolean(), fc.constantFrom(...TUNNELS), fc.constantFrom(...SECRETS)), {
          maxLength: 60,
        }),
        (maxEntries, maxPerTunnel, steps) => {
          const refused = new RefusedAgentTokens({ maxEntries, maxPerTunnel })
          // The model: [tunnel, secret] pairs, least recently presented first.
          const model: [string, string][] = []
          const at = (t: string, s: string) => model.findIndex(([a, b]) => a === t && b === s)
          for (const [add, tunnel, secret] of steps) {
            const i = at(tunnel, secret)
            if (i >= 0) model.push(...model.splice(i, 1))
            if (!add) {
              assert.equal(refused.has(tunnel, secret), i >= 0)
              continue
            }
            if (i < 0) {
              const own = model.filter(([t]) => t === tunnel)
              if (own.length >= maxPerTunnel) model.splice(at(tunnel, own[0]![1]), 1)
              else if (model.length >= maxEntries) model.shift()
              model.push([tunnel, secret])
            }
            refused.add(tunnel, secret)
            assert.equal(refused.size, model.length)
          }
          for (const tunnel of TUNNELS) {
            for (const secret of SECRETS) {
              assert.equal(refused.has(tunnel, secret), at(tunnel, secret) >= 0)
            }
          }
        },
      ),
      { numRuns: 3000, seed: 20261130 },
    )
  })
})

/** One step on the shared table or one node's gate. */
type Step =
  | { readonly kind: 'make'; readonly tunnel: string }
  | { readonly kind: 'revoke'; readonly which: number }
  | {
      readonly kind: 'present'
      readonly node: number
      readonly tunnel: string
      readonly which: number
    }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('make' as const), tunnel: fc.constantFrom(...TUNNELS) }),
  fc.record({ kind: fc.constant('revoke' as const), which: fc.nat() }),
  fc.record({
    kind: fc.constant('present' as const),
    node: fc.nat({ max: 1 }),
    tunnel: fc.constantFrom(...TUNNELS),
    which: fc.nat(),
  }),
)

describe('refused agent tokens on two nodes (property)', () => {
  it('answer as the token table says, whatever was refused before and on which node', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 40 }),
        fc.integer({ min: 1, max: 4 }),
        async (steps, bound) => {
          // The table: secret → its tunnel, while it is not revoked.
          const table = new Map<string, string>()
          // Every secret made so far and some never made, in order: what agents present.
          const known = ['atk_guess1', 'atk_guess2']
          let made = 0
          const access: TunnelAccess = { mode: 'token', allowIps: [] }
          const gates = [0, 1].map(
            () =>
              new AccessGate({
                settings: { get: () => Promise.resolve(access) },
                agentTokens: {
                  authenticate: (tunnelId, secret) => {
                    const found = table.get(secret) === tunnelId
                    const token: AgentToken = {
                      id: secret,
                      tunnelId,
                      name: secret,
                      createdAt: new Date(0),
                      lastUsedAt: null,
                    }
                    return Promise.resolve(found ? token : undefined)
                  },
                },
                issuer: 'http://localhost',
                publicOrigin: (label) => `http://${label}.localhost`,
                refusedTokens: new RefusedAgentTokens({ maxEntries: bound, maxPerTunnel: bound }),
              }),
          )
          for (const s of steps) {
            if (s.kind === 'make') {
              const secret = `atk_made${made++}`
              table.set(secret, s.tunnel)
              known.push(secret)
            } else if (s.kind === 'revoke') {
              table.delete(known[s.which % known.length]!)
            } else {
              const secret = known[s.which % known.length]!
              const decision = await gates[s.node]!.check(
                s.tunnel,
                'http://x.localhost',
                '127.0.0.1',
                `Bearer ${secret}`,
              )
              assert.equal(decision.ok, table.get(secret) === s.tunnel, JSON.stringify(s))
            }
          }
        },
      ),
      { numRuns: 1000, seed: 20261130 },
    )
  })
})
