/**
 * A billing change sent with a credential that is revoked while its body arrives does not reach
 * the payment provider: a plan change, a switch of billing cycle, a checkout or a cancellation
 * checks again, once its body is read, that the API token or browser session it acts with still
 * exists, as every change the account's lock guards does. Before, an API token revoked (or a
 * browser signed out, or every credential ended by a password reset) after its request's head was
 * authenticated still moved the owner's subscription to Scale, or to annual billing, charged to
 * the owner's payment method.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buyPlan } from '../helpers/dev-checkout.js'
import { heldFormAcrossSignOut } from '../helpers/held-form-across-sign-out.js'
import { heldRequest } from '../helpers/raw-http.js'
import { testBackends } from '../../packages/server/test/helpers/test-databases.js'
import type { TestDatabase } from '../../packages/server/test/helpers/test-databases.js'
import { startService, type Service } from '../helpers/stack.js'
import { signUp, untilTokenUsed, type WebUser } from '../helpers/web-client.js'

for (const backend of testBackends())
  describe(`a billing change sent with a credential revoked meanwhile, on ${backend.name}`, () => {
    let service: Service
    let database: TestDatabase
    let user: WebUser
    let base: string

    before(async () => {
      database = await backend.create()
      service = await startService({
        BURROW_BILLING_PROVIDER: 'dev',
        ...(database.config.databaseUrl
          ? { BURROW_DATABASE_URL: database.config.databaseUrl }
          : {}),
      })
      base = `http://127.0.0.1:${service.port}`
      user = await signUp(base, 'payer')
      await buyPlan(base, (m, p, b) => user.api(m, p, b), 'pro')
    })
    after(async () => {
      await service?.close()
      await database?.drop()
    })

    const billing = async () =>
      (await user.api<{ plan: string; cycle: string; state: string }>('GET', '/api/billing')).json

    /** `path` with `body`, sent by an API token revoked after the head and before the body. */
    const sentByRevokedToken = async (path: string, body: unknown): Promise<number> => {
      const made = await user.api<{ token: { id: string }; secret: string }>(
        'POST',
        '/api/tokens',
        {
          name: `leaked for ${path}`,
        },
      )
      assert.equal(made.status, 201)
      const sending = await heldRequest(
        service.port,
        'POST',
        path,
        { authorization: `Bearer ${made.json.secret}`, 'content-type': 'application/json' },
        JSON.stringify(body),
      )
      await untilTokenUsed(user, made.json.token.id)
      assert.equal((await user.api('DELETE', `/api/tokens/${made.json.token.id}`)).status, 204)
      return sending()
    }

    it('does not change the plan for an API token revoked while its body arrived', async () => {
      assert.equal(await sentByRevokedToken('/api/billing/plan', { plan: 'scale' }), 401)
      const now = await billing()
      assert.equal(now.plan, 'pro', 'the subscription was not moved to Scale')
      assert.equal((await user.api<{ plan: string }>('GET', '/api/account')).json.plan, 'pro')
    })

    it('does not switch the billing cycle for an API token revoked while its body arrived', async () => {
      assert.equal(await sentByRevokedToken('/api/billing/cycle', { cycle: 'annual' }), 401)
      assert.equal((await billing()).cycle, 'monthly', 'the subscription is still billed monthly')
    })

    it('does not cancel for a browser signed out while its form arrived', async () => {
      const status = await heldFormAcrossSignOut({
        base,
        port: service.port,
        email: 'payer@example.com',
        password: 'correct horse battery',
        path: '/dashboard/billing/cancel',
        fields: {},
        check: async () =>
          assert.equal((await billing()).state, 'active', 'the subscription was not cancelled'),
      })
      assert.notEqual(status, 303)
    })
  })
