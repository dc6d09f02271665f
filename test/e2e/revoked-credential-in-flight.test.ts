/**
 * A change sent with a credential that is revoked while its body arrives does not land: the
 * tunnel's policy (its redaction, its tool rules, zero-knowledge mode) and the owner's decision
 * on a changed or new tool (rug-pull protection) are written under the account's lock, which
 * checks again that the API token or browser session still exists, as a token, a tunnel, its
 * key or its access are. Before, a policy or a tool's approval whose body came after its API
 * token was revoked (or after a password reset revoked every token) was stored.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { after, before, describe, it } from 'node:test'
import { heldFormAcrossSignOut } from '../helpers/held-form-across-sign-out.js'
import { heldRequest } from '../helpers/raw-http.js'
import { testBackends } from '../../packages/server/test/helpers/test-databases.js'
import type { TestDatabase } from '../../packages/server/test/helpers/test-databases.js'
import { startService, type Service } from '../helpers/stack.js'
import { bearerApi, signUp, untilTokenUsed, type WebUser } from '../helpers/web-client.js'

for (const backend of testBackends()) {
  describe(`a policy sent with a credential revoked meanwhile, on ${backend.name}`, () => {
    let service: Service
    let database: TestDatabase
    let user: WebUser
    let tunnelId: string
    let base: string

    before(async () => {
      database = await backend.create()
      service = await startService(
        database.config.databaseUrl ? { BURROW_DATABASE_URL: database.config.databaseUrl } : {},
      )
      base = `http://127.0.0.1:${service.port}`
      user = await signUp(base, 'policy-owner')
      const made = await user.api<{ tunnel: { id: string } }>('POST', '/api/tunnels', {
        name: 'kept',
      })
      tunnelId = made.json.tunnel.id
    })
    after(async () => {
      await service?.close()
      await database?.drop()
    })

    const version = async () => {
      const got = await user.api<{ version: number }>('GET', `/api/tunnels/${tunnelId}/policy`)
      assert.equal(got.status, 200)
      return got.json.version
    }

    it('refuses the policy of an API token revoked while its body arrived', async () => {
      const made = await user.api<{ token: { id: string }; secret: string }>(
        'POST',
        '/api/tokens',
        { name: 'leaked' },
      )
      assert.equal(made.status, 201)
      const before = await version()
      const writing = await heldRequest(
        service.port,
        'PUT',
        `/api/tunnels/${tunnelId}/policy`,
        { authorization: `Bearer ${made.json.secret}`, 'content-type': 'application/json' },
        JSON.stringify({ redaction: { detect_secrets: false } }),
      )
      await untilTokenUsed(user, made.json.token.id)
      const revoked = await user.api('DELETE', `/api/tokens/${made.json.token.id}`)
      assert.equal(revoked.status, 204)
      assert.equal(await writing(), 401)
      assert.equal(await version(), before, 'the policy was not written')
      assert.equal((await bearerApi(base, made.json.secret)('GET', '/api/account')).status, 401)
    })

    /** A tool the tunnel's server listed new since the owner's last approval. */
    const seedNewTool = async (name: string) => {
      const values = [
        tunnelId,
        name,
        'b'.repeat(64),
        JSON.stringify({ name }),
        new Date().toISOString(),
      ]
      const insert =
        'insert into tool_pins (tunnel_id, name, status, current_hash, current_definition, changed_at)'
      if (database.config.databaseUrl) {
        const client = new pg.Client({ connectionString: database.config.databaseUrl })
        await client.connect()
        try {
          await client.query(`${insert} values ($1, $2, 'new', $3, $4, $5)`, values)
        } finally {
          await client.end()
        }
      } else {
        const db = new Database(join(service.dataDir, 'burrow.db'))
        try {
          db.prepare(`${insert} values (?, ?, 'new', ?, ?, ?)`).run(...values)
        } finally {
          db.close()
        }
      }
    }

    it('refuses the tool approval of an API token revoked while its body arrived', async () => {
      await seedNewTool('shell_exec')
      const made = await user.api<{ token: { id: string }; secret: string }>(
        'POST',
        '/api/tokens',
        { name: 'leaked too' },
      )
      const approving = await heldRequest(
        service.port,
        'POST',
        `/api/tunnels/${tunnelId}/tools/shell_exec/approve`,
        { authorization: `Bearer ${made.json.secret}`, 'content-type': 'application/json' },
        JSON.stringify({ hash: 'b'.repeat(64) }),
      )
      await untilTokenUsed(user, made.json.token.id)
      assert.equal((await user.api('DELETE', `/api/tokens/${made.json.token.id}`)).status, 204)
      assert.equal(await approving(), 401)
      const tools = await user.api<{ tools: { name: string; status: string }[] }>(
        'GET',
        `/api/tunnels/${tunnelId}/tools`,
      )
      assert.equal(tools.json.tools.find((t) => t.name === 'shell_exec')?.status, 'new')
    })

    it(
      'gives no new webhook secret to an API token revoked between its check and the rotation',
      { skip: backend.name !== 'postgres' && 'needs a row lock held from outside burrowd' },
      async () => {
        const endpoint = await user.api<{ id: string; secret: string }>('POST', '/api/webhooks', {
          url: 'https://hooks.example.com/burrow',
        })
        assert.equal(endpoint.status, 201)
        const made = await user.api<{ token: { id: string }; secret: string }>(
          'POST',
          '/api/tokens',
          { name: 'leaked, rotating' },
        )
        const account = await user.api<{ id: string }>('GET', '/api/account')
        // The account's row held from outside, as a busy database would hold the rotation
        // between the request's authentication and its write.
        const holder = new pg.Client({ connectionString: database.config.databaseUrl! })
        await holder.connect()
        try {
          await holder.query('begin')
          await holder.query('select id from accounts where id = $1 for update', [account.json.id])
          const rotating = bearerApi(base, made.json.secret)(
            'POST',
            `/api/webhooks/${endpoint.json.id}/rotate-secret`,
          )
          let answered = false
          void rotating.finally(() => (answered = true))
          // Authenticated (its token was valid) and waiting for the account's lock (before, it
          // waited for nothing and was answered at once).
          while (
            !answered &&
            (
              await holder.query(
                "select 1 from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
              )
            ).rowCount === 0
          ) {
            await new Promise((resolve) => setTimeout(resolve, 20))
          }
          const revoked = await user.api('DELETE', `/api/tokens/${made.json.token.id}`)
          assert.equal(revoked.status, 204)
          await holder.query('commit')
          // Before, the rotation took no lock and checked nothing more: the earlier holder got
          // a new secret, signing deliveries the owner's receiver trusts, after its token was
          // revoked.
          assert.equal((await rotating).status, 401)
        } finally {
          await holder.end()
        }
        const now = await user.api<{ secret: string }>('GET', `/api/webhooks/${endpoint.json.id}`)
        assert.equal(now.json.secret, endpoint.json.secret, 'the secret was not rotated')
      },
    )

    it('refuses the policy form of a browser signed out while its body arrived', async () => {
      const before = await version()
      const status = await heldFormAcrossSignOut({
        base,
        port: service.port,
        email: 'policy-owner@example.com',
        password: 'correct horse battery',
        path: `/dashboard/tunnels/${tunnelId}/policy`,
        fields: { policy: JSON.stringify({ redaction: { detect_secrets: false } }) },
        check: async () => assert.equal(await version(), before, 'the policy was not written'),
      })
      assert.notEqual(status, 303)
    })
  })
}
