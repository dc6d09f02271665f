/**
 * The dispatcher against real receivers on 127.0.0.1 and real databases (SQLite always,
 * PostgreSQL when TEST_DATABASE_URL is set), with an injected clock: signed deliveries verified
 * by the `standardwebhooks` library, retries on the schedule with the delivery log showing each
 * attempt, Retry-After, 410 and repeated failure disabling the endpoint, the SSRF guard's
 * refusals in the log, no redirects, deadlines, two dispatchers racing on one database, and
 * stopping in the middle of an attempt.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import { Webhook } from 'standardwebhooks'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/webhooks/retry-schedule.js'
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js'
import type { WebhookDispatcherOptions } from '../../src/webhooks/webhook-dispatcher.js'
import {
  PREVIOUS_SECRET_SIGNS_MS,
  WebhookEndpointStore,
} from '../../src/webhooks/webhook-endpoint-store.js'
import type { CreatedWebhookEndpoint } from '../../src/webhooks/webhook-endpoint-store.js'
import { enqueueWebhookEvent } from '../../src/webhooks/webhook-outbox.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'
import { startWebhookReceiver, webhookHeaders } from '../helpers/webhook-receiver.js'
import type { ReceivedWebhook, WebhookReceiver } from '../helpers/webhook-receiver.js'

const PRIVATE_HINT = 'set BURROW_WEBHOOKS_ALLOW_PRIVATE=1 to allow private addresses'
/** What the delivery log says of a name with no address webhooks are sent to, whatever DNS said. */
const unresolved = (host: string) =>
  `could not send: ${host} has no address webhooks are sent to (it does not resolve, or only to loopback, private or reserved addresses)`

for (const backend of testBackends()) {
  describe(`webhook dispatcher on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let receiver: WebhookReceiver
    let clock: number
    let accountId: string
    let endpoints: WebhookEndpointStore
    let endpoint: CreatedWebhookEndpoint
    let lines: string[]
    let cleanup: (() => Promise<void>)[]
    const now = () => new Date(clock)

    beforeEach(async () => {
      // Real time, so the library's ±5 min timestamp check applies to the first attempts.
      clock = Date.now()
      cleanup = []
      lines = []
      database = await backend.create()
      store = await openStore(database.config)
      receiver = await startWebhookReceiver()
      accountId = (await store.createAccount({ email: 'a@example.com', slug: 'acme' })).id
      endpoints = new WebhookEndpointStore(store.db, now, { allowPrivate: true })
      endpoint = await endpoints.create(accountId, { url: receiver.url })
    })

    afterEach(async () => {
      for (const done of cleanup.reverse()) await done()
      await receiver.close()
      await store.close()
      await database.drop()
    })

    function dispatcher(options: Partial<WebhookDispatcherOptions> = {}): WebhookDispatcher {
      const made = new WebhookDispatcher({
        db: store.db,
        now,
        allowPrivate: true,
        log: createLogger('debug', (line) => void lines.push(line)),
        random: () => 0.5,
        userAgent: 'Burrow-Webhooks/test',
        ...options,
      })
      cleanup.push(() => made.stop())
      return made
    }

    async function queue(id: string, occurredAt = new Date(clock)): Promise<number> {
      return enqueueWebhookEvent(store.db, {
        accountId,
        type: 'quota.warning',
        id,
        data: { id },
        occurredAt,
      })
    }

    async function log(id = endpoint.id) {
      return endpoints.deliveries(accountId, id)
    }

    /** Assert the request is signed for `endpoint` at its own timestamp (library's `sign`). */
    function assertSigned(request: ReceivedWebhook, secret = endpoint.secret): void {
      const headers = webhookHeaders(request)
      const at = new Date(Number(headers['webhook-timestamp']) * 1000)
      const expected = new Webhook(secret).sign(headers['webhook-id'] ?? '', at, request.body)
      assert.equal(headers['webhook-signature'], expected)
    }

    it('POSTs a signed event that the standardwebhooks library verifies', async () => {
      assert.equal(await queue('evt_1'), 1)
      assert.equal(await dispatcher().runDue(), 1)
      const [request] = receiver.received
      assert.ok(request)
      assert.equal(request.method, 'POST')
      assert.equal(request.path, '/hooks')
      assert.equal(request.headers['content-type'], 'application/json')
      assert.equal(request.headers['user-agent'], 'Burrow-Webhooks/test')
      assert.equal(request.headers['webhook-id'], 'evt_1')
      assert.equal(request.headers['webhook-timestamp'], String(Math.floor(clock / 1000)))
      const event = new Webhook(endpoint.secret).verify(request.body, webhookHeaders(request))
      assert.deepEqual(event, {
        type: 'quota.warning',
        timestamp: new Date(clock).toISOString(),
        data: { id: 'evt_1' },
      })
      const [entry] = await log()
      assert.equal(entry?.status, 'delivered')
      assert.equal(entry?.attempts, 1)
      assert.equal(entry?.lastStatus, 200)
      assert.equal(entry?.lastError, null)
      assert.equal(entry?.nextAttemptAt, null)
      assert.deepEqual(entry?.lastAttemptAt, new Date(clock))
      assert.equal(await dispatcher().runDue(), 0)
      assert.equal(receiver.received.length, 1)
    })

    it('signs with the new secret and, for a day after a rotation, the previous one too', async () => {
      const rotated = await endpoints.rotateSecret(accountId, endpoint.id)
      assert.notEqual(rotated.secret, endpoint.secret)
      assert.match(rotated.secret, /^whsec_/)
      assert.deepEqual(rotated.previousExpiresAt, new Date(clock + PREVIOUS_SECRET_SIGNS_MS))
      assert.equal(await endpoints.revealSecret(accountId, endpoint.id), rotated.secret)
      await queue('evt_rotated')
      assert.equal(await dispatcher().runDue(), 1)
      const [during] = receiver.received
      assert.ok(during)
      // A receiver holding either secret verifies the same request.
      for (const secret of [rotated.secret, endpoint.secret]) {
        const event = new Webhook(secret).verify(during.body, webhookHeaders(during)) as {
          data: unknown
        }
        assert.deepEqual(event.data, { id: 'evt_rotated' })
      }
      assert.equal(webhookHeaders(during)['webhook-signature']?.split(' ').length, 2)
      // A day later only the new secret signs (the library's timestamp check is kept by
      // comparing with its own signature, as `assertSigned` does).
      clock += PREVIOUS_SECRET_SIGNS_MS
      await queue('evt_later')
      assert.equal(await dispatcher().runDue(), 1)
      const later = receiver.received[1]
      assert.ok(later)
      assertSigned(later, rotated.secret)
      // Another account's endpoint is not found, and nothing of it changes.
      const other = (await store.createAccount({ email: 'b@example.com', slug: 'other' })).id
      await assert.rejects(endpoints.rotateSecret(other, endpoint.id), /not found in this account/)
      assert.equal(await endpoints.revealSecret(accountId, endpoint.id), rotated.secret)
    })

    it('retries a failing receiver on schedule with the same id and bytes, and logs each attempt', async () => {
      receiver.respond({ status: 500, body: 'database is down\n\tretry later' })
      await queue('evt_retry')
      const sender = dispatcher()
      const first = clock
      assert.equal(await sender.runDue(), 1)
      let [entry] = await log()
      assert.equal(entry?.status, 'pending')
      assert.equal(entry?.attempts, 1)
      assert.equal(entry?.lastStatus, 500)
      assert.equal(entry?.lastError, 'HTTP 500: database is down retry later')
      assert.deepEqual(entry?.lastAttemptAt, new Date(first))
      assert.deepEqual(entry?.nextAttemptAt, new Date(first + 5000))
      assert.equal((await endpoints.get(accountId, endpoint.id)).consecutiveFailures, 1)

      clock = first + 4999
      assert.equal(await sender.runDue(), 0, 'not due before the 5 s retry')
      clock = first + 5000
      assert.equal(await sender.runDue(), 1)
      ;[entry] = await log()
      assert.equal(entry?.status, 'delivered')
      assert.equal(entry?.attempts, 2)
      assert.equal(entry?.lastStatus, 200)
      assert.equal(entry?.lastError, null)
      assert.equal(entry?.nextAttemptAt, null)
      assert.equal((await endpoints.get(accountId, endpoint.id)).consecutiveFailures, 0)

      const [one, two] = receiver.received
      assert.ok(one && two)
      assert.equal(two.headers['webhook-id'], one.headers['webhook-id'])
      assert.equal(two.body, one.body)
      assert.equal(
        Number(two.headers['webhook-timestamp']) - Number(one.headers['webhook-timestamp']),
        5,
      )
      assertSigned(one)
      assertSigned(two)
    })

    it('waits as long as Retry-After asks on 429 and 503', async () => {
      receiver.respond(
        { status: 429, headers: { 'retry-after': '3600' } },
        {
          status: 503,
          headers: { 'retry-after': new Date(clock + 2 * 3_600_000 + 10_000).toUTCString() },
        },
      )
      await queue('evt_throttled')
      const sender = dispatcher()
      const start = clock
      await sender.runDue()
      let [entry] = await log()
      assert.deepEqual(entry?.nextAttemptAt, new Date(start + 3_600_000))
      assert.equal(entry?.lastError, 'HTTP 429')
      clock = start + 3_600_000
      await sender.runDue()
      ;[entry] = await log()
      assert.equal(entry?.lastStatus, 503)
      // The date has whole seconds; the 5 min scheduled delay is shorter, so the date wins.
      const wanted = Math.floor((start + 2 * 3_600_000 + 10_000) / 1000) * 1000
      assert.deepEqual(entry?.nextAttemptAt, new Date(wanted))
    })

    it('disables the endpoint at once on 410 and cancels what it had pending', async () => {
      receiver.respond({ status: 410, body: 'gone' })
      await queue('evt_first')
      clock += 1
      await queue('evt_second')
      assert.equal(await dispatcher({ batchSize: 1 }).runDue(), 1)
      const disabled = await endpoints.get(accountId, endpoint.id)
      assert.deepEqual(disabled.disabledAt, new Date(clock))
      assert.equal(
        disabled.disabledReason,
        'disabled at once: the endpoint answered HTTP 410 Gone, which asks for no more events',
      )
      const entries = await log()
      assert.deepEqual(
        entries.map((d) => [d.id, d.status, d.attempts, d.lastStatus]),
        [
          ['evt_second', 'cancelled', 0, null],
          ['evt_first', 'failed', 1, 410],
        ],
      )
      assert.equal(await dispatcher().runDue(), 0)
      assert.equal(await queue('evt_third'), 0, 'a disabled endpoint gets no new deliveries')
      assert.equal(receiver.received.length, 1)
      assert.ok(lines.some((l) => l.startsWith('WARN') && l.includes('410 Gone')))
    })

    it('gives up after the whole schedule (about a day) and disables the endpoint with the reason', async () => {
      receiver.respondAlways({ status: 500, body: 'nope' })
      await queue('evt_doomed')
      // Queued for later than the last attempt, so it is still pending when the endpoint goes.
      await queue('evt_later', new Date(clock + 2 * 24 * 3_600_000))
      const sender = dispatcher()
      const start = clock
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        assert.equal(await sender.runDue(), 1, `attempt ${attempt}`)
        const entry = (await log()).find((d) => d.id === 'evt_doomed')
        assert.equal(entry?.attempts, attempt)
        if (entry?.nextAttemptAt) clock = entry.nextAttemptAt.getTime()
      }
      const total = RETRY_DELAYS_MS.reduce((sum, d) => sum + d, 0)
      assert.equal(clock - start, total)
      const disabled = await endpoints.get(accountId, endpoint.id)
      assert.equal(
        disabled.disabledReason,
        `disabled after ${MAX_ATTEMPTS} failed attempts in a row; last: HTTP 500: nope`,
      )
      assert.deepEqual(disabled.disabledAt, new Date(clock))
      assert.deepEqual(
        (await log()).map((d) => [d.id, d.status, d.nextAttemptAt]),
        [
          ['evt_later', 'cancelled', null],
          ['evt_doomed', 'failed', null],
        ],
      )
      assert.equal(receiver.received.length, MAX_ATTEMPTS)

      // Re-enabled, it receives new events again.
      receiver.respondAlways({ status: 204 })
      await endpoints.enable(accountId, endpoint.id)
      assert.equal(await queue('evt_after'), 1)
      assert.equal(await sender.runDue(), 1)
      assert.equal((await log()).find((d) => d.id === 'evt_after')?.status, 'delivered')
    })

    it('keeps an endpoint that succeeds in between, even if one delivery fails for good', async () => {
      receiver.respondAlways((request) =>
        request.headers['webhook-id'] === 'evt_ok' ? { status: 200 } : { status: 400, body: 'bad' },
      )
      await queue('evt_rejected')
      const sender = dispatcher()
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        if (attempt === 4) await queue('evt_ok')
        await sender.runDue()
        const next = (await log()).find((d) => d.id === 'evt_rejected')?.nextAttemptAt
        if (next) clock = next.getTime()
      }
      const after = await endpoints.get(accountId, endpoint.id)
      assert.equal(after.disabledAt, null)
      assert.equal((await log()).find((d) => d.id === 'evt_rejected')?.status, 'failed')
    })

    it('refuses loopback receivers without the operator switch and logs why', async () => {
      const byName = await endpoints.create(accountId, {
        url: `http://localhost:${receiver.port}/hooks`,
      })
      await queue('evt_private')
      assert.equal(await dispatcher({ allowPrivate: false }).runDue(), 2)
      assert.equal(receiver.received.length, 0)
      const [literal] = await log()
      assert.equal(literal?.status, 'pending')
      assert.equal(literal?.attempts, 1)
      assert.equal(literal?.lastStatus, null)
      assert.equal(literal?.lastError, `refused: 127.0.0.1 is a loopback address; ${PRIVATE_HINT}`)
      // What the name resolves to is for burrowd's log, not the endpoint owner's.
      const [named] = await log(byName.id)
      assert.equal(named?.lastError, unresolved('localhost'))
      assert.ok(
        lines.some((l) =>
          /refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address; set BURROW_WEBHOOKS_ALLOW_PRIVATE=1/.test(
            l,
          ),
        ),
      )
      assert.equal((await endpoints.get(accountId, endpoint.id)).consecutiveFailures, 1)
      assert.ok(lines.some((l) => l.includes('refused: 127.0.0.1 is a loopback address')))

      // The same deliveries go through once the operator allows private addresses.
      clock += 5000
      assert.equal(await dispatcher({ allowPrivate: true }).runDue(), 2)
      assert.equal(receiver.received.length, 2)
    })

    it('resolves names once and refuses one that points at a private address', async () => {
      const named = await endpoints.create(accountId, {
        url: `http://hooks.example.test:${receiver.port}/hooks`,
      })
      await endpoints.delete(accountId, endpoint.id)
      await queue('evt_named')
      const resolve = async () => [{ address: '10.1.2.3', family: 4 }]
      await dispatcher({ allowPrivate: false, resolve }).runDue()
      assert.equal((await log(named.id))[0]?.lastError, unresolved('hooks.example.test'))
      assert.ok(
        lines.some((l) =>
          l.includes(`refused: hooks.example.test resolves to 10.1.2.3, a private address`),
        ),
      )
      clock += 5000
      const loopback = async () => [{ address: '127.0.0.1', family: 4 }]
      await dispatcher({ allowPrivate: true, resolve: loopback }).runDue()
      assert.equal((await log(named.id))[0]?.status, 'delivered')
      assert.equal(receiver.received[0]?.headers.host, `hooks.example.test:${receiver.port}`)
    })

    it('hostile: the delivery log does not tell a name that resolves inside from one that does not', async () => {
      const inside = await endpoints.create(accountId, {
        url: `http://inside.example.test:${receiver.port}/hooks`,
      })
      const nowhere = await endpoints.create(accountId, {
        url: `http://nowhere.example.test:${receiver.port}/hooks`,
      })
      await endpoints.delete(accountId, endpoint.id)
      await queue('evt_probe')
      const resolve = async (name: string) =>
        name === 'inside.example.test' ? [{ address: '10.0.0.7', family: 4 }] : []
      await dispatcher({ allowPrivate: false, resolve }).runDue()
      const shown = [(await log(inside.id))[0]?.lastError, (await log(nowhere.id))[0]?.lastError]
      assert.deepEqual(shown, [
        unresolved('inside.example.test'),
        unresolved('nowhere.example.test'),
      ])
      assert.ok(!JSON.stringify(shown).includes('10.0.0.7'))
      // burrowd's own log keeps what happened.
      assert.ok(lines.some((l) => l.includes('inside.example.test resolves to 10.0.0.7')))
      assert.ok(lines.some((l) => l.includes('nowhere.example.test has no addresses')))
    })

    it('does not follow redirects', async () => {
      receiver.respond({ status: 302, headers: { location: `${receiver.url}/elsewhere` } })
      await queue('evt_redirect')
      await dispatcher().runDue()
      assert.equal(receiver.received.length, 1)
      assert.equal((await log())[0]?.lastError, 'HTTP 302 (redirects are not followed)')
    })

    it('keeps only a short, one-line prefix of a large error body', async () => {
      receiver.respond({ status: 500, body: `${'x'.repeat(300)}\u0000\n${'y'.repeat(5_000_000)}` })
      await queue('evt_big')
      await dispatcher().runDue()
      const error = (await log())[0]?.lastError ?? ''
      assert.equal(error, `HTTP 500: ${'x'.repeat(200)}…`)
    })

    it('gives up on an attempt that gets no answer by the deadline', async () => {
      receiver.respond('hang')
      await queue('evt_slow')
      await dispatcher({ timeoutMs: 300 }).runDue()
      const [entry] = await log()
      assert.equal(entry?.lastError, 'no answer within 0.3 s')
      assert.equal(entry?.lastStatus, null)
      assert.equal(entry?.status, 'pending')
    })

    it('reports a receiver that is not listening', async () => {
      const closed = await startWebhookReceiver()
      await closed.close()
      const gone = await endpoints.create(accountId, { url: closed.url })
      await endpoints.delete(accountId, endpoint.id)
      await queue('evt_closed')
      await dispatcher().runDue()
      assert.match((await log(gone.id))[0]?.lastError ?? '', /^could not send: .*ECONNREFUSED/)
    })

    it('sends nothing to a disabled endpoint', async () => {
      await queue('evt_x')
      await store.db
        .updateTable('webhook_endpoints')
        .set({ disabled_at: new Date(clock).toISOString(), disabled_reason: 'by hand' })
        .execute()
      assert.equal(await dispatcher().runDue(), 0)
      assert.equal(receiver.received.length, 0)
    })

    it('lets two dispatchers on one database send each attempt exactly once', async () => {
      const other = await openStore(database.config)
      cleanup.push(() => other.close())
      receiver.respondAlways({ status: 500 })
      const ids = Array.from({ length: 20 }, (_, i) => `evt_race_${i}`)
      for (const id of ids) await queue(id)
      const a = dispatcher({ concurrency: 4 })
      const b = dispatcher({ db: other.db, concurrency: 4 })
      // A pass sends a few of one account's deliveries: passes until one sends nothing.
      const drain = async (d: ReturnType<typeof dispatcher>) => {
        let sent = 0
        for (let made = await d.runDue(); made > 0; made = await d.runDue()) sent += made
        return sent
      }
      const [sentA, sentB] = await Promise.all([drain(a), drain(b)])
      assert.equal(sentA + sentB, 20)
      assert.equal(receiver.received.length, 20)
      assert.deepEqual(new Set(receiver.received.map((r) => r.headers['webhook-id'])), new Set(ids))

      // The retries race too: each delivery gets exactly one second attempt.
      clock += 5000
      const [againA, againB] = await Promise.all([drain(a), drain(b)])
      assert.equal(againA + againB, 20)
      assert.equal(receiver.received.length, 40)
      for (const entry of await log()) assert.equal(entry.attempts, 2)
    })

    it('gives an attempt in flight back to the outbox when stopped', async () => {
      receiver.respond('hang')
      await queue('evt_stopped')
      const sender = dispatcher()
      const pass = sender.runDue()
      await receiver.waitFor(1)
      await sender.stop()
      await pass
      const [entry] = await log()
      assert.equal(entry?.status, 'pending')
      assert.equal(entry?.attempts, 0)
      assert.deepEqual(entry?.nextAttemptAt, new Date(clock))
      assert.equal(await dispatcher().runDue(), 1, 'the next dispatcher sends it')
    })
  })
}
