/**
 * What one account can make burrowd send (found by a hostile review): its own local server
 * decides how many `tool.changed` events it raises, so the deliveries an account queues are
 * bounded per hour, a tool name of megabytes is not pinned (nor copied into webhooks), and one
 * account's backlog of slow endpoints does not hold back another account's webhooks.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { createLogger, silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { ToolPins, type ListPage } from '../../src/governance/tool-pins.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { emitToolChanged } from '../../src/webhooks/tool-changed.js'
import { MAX_ATTEMPTS } from '../../src/webhooks/retry-schedule.js'
import { boundedResolve } from '../../src/webhooks/system-resolve.js'
import { PER_ACCOUNT_AT_ONCE, WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js'
import { WebhookEndpointStore } from '../../src/webhooks/webhook-endpoint-store.js'
import { enqueueWebhookEvent } from '../../src/webhooks/webhook-outbox.js'
import { TOOL_CHANGED_PER_TUNNEL_PER_HOUR } from '../../src/webhooks/tool-changed.js'
import { startWebhookService } from '../../src/webhooks/webhook-service.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'
import { startLoopbackDns } from '../helpers/loopback-dns.js'
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js'

const backend = testBackends()[0]!

const tool = (name: string, description: string) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
})
const PAGE: ListPage = { cursor: null, nextCursor: null, mode: 'alert', zeroKnowledge: false }

describe('webhooks one account can cause', () => {
  let database: TestDatabase
  let store: Store
  let receivers: WebhookReceiver[]
  let stops: (() => Promise<void>)[]

  beforeEach(async () => {
    database = await backend.create()
    store = await openStore(database.config)
    receivers = []
    stops = []
  })

  afterEach(async () => {
    for (const stop of stops.reverse()) await stop()
    for (const r of receivers) await r.close()
    await store.close()
    await database.drop()
  })

  async function receiver(): Promise<WebhookReceiver> {
    const r = await startWebhookReceiver()
    receivers.push(r)
    return r
  }

  const countDeliveries = async (accountId: string) =>
    Number(
      (
        await store.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    )

  it("a tunnel's server cannot make burrowd queue tool.changed deliveries without end", async () => {
    // A free sign-up: 10 endpoints (the per-account maximum), rug-pull protection in its
    // default `alert` mode, and a local server that answers every tools/list with every
    // description changed.
    const account = await store.createAccount({ email: 'evil@example.com', slug: 'evil' })
    const created = await store.createTunnel({ accountId: account.id, name: 'tools' })
    const tunnel = { id: created.tunnel.id, accountId: account.id }
    const sink = await receiver()
    const endpoints = new WebhookEndpointStore(store.db, () => new Date(), { allowPrivate: true })
    for (let i = 0; i < 10; i++) await endpoints.create(account.id, { url: `${sink.url}/${i}` })
    let clock = Date.parse('2026-05-06T07:08:09.000Z')
    const logged: string[] = []
    const webhooks = startWebhookService({
      db: store.db,
      allowPrivate: true,
      log: createLogger('info', (line) => void logged.push(line)),
      pollMs: 3_600_000,
      now: () => new Date(clock),
    })
    stops.push(() => webhooks.stop())
    const pins = new ToolPins({
      store: store.toolPins,
      events: new LocalClusterEvents(),
      log: silentLogger,
      onChange: async (c) => {
        await webhooks.emitToolChanged({ ...c, tunnelName: null })
      },
      dashboardUrl: 'https://burrow.example/dashboard/tunnels/',
      now: () => clock,
    })
    const listing = async (round: number) => {
      const tools = Array.from({ length: 200 }, (_, i) => tool(`t${i}`, `round ${round}`))
      pins.observe(tunnel, await pins.state(tunnel.id), tools, PAGE)
      await pins.settled()
      clock += 1000
    }
    await listing(0) // baseline: no event
    await listing(1) // every tool changed
    await listing(2) // and again: nothing limits how often
    const queued = await countDeliveries(account.id)
    // 2 listings x 200 tools x 10 endpoints = 4,000 deliveries, each tried up to 8 times over
    // ~27 h, all from a few KiB of tools/list answers the account's own server wrote. A plan's
    // 1,000 pinned tools and a free bandwidth quota allow millions a month.
    assert.equal(
      queued,
      TOOL_CHANGED_PER_TUNNEL_PER_HOUR * 10,
      'its first changes of the hour only',
    )
    // …and the log says so once, not once per change held back.
    assert.equal(logged.filter((l) => l.includes('tool.changed')).length, 1, logged.join('\n'))
    // A quota warning of the same account still goes out.
    const warned = await webhooks.emitQuotaWarning({
      accountId: account.id,
      tunnelId: tunnel.id,
      tunnelName: null,
      metric: 'tool_calls',
      period: '2026-05',
      used: 80,
      limit: 100,
      resetsAt: new Date('2026-06-01T00:00:00.000Z'),
      now: new Date(clock),
    })
    assert.ok(warned)
  })

  it('a tool name of megabytes is not copied into every tool.changed delivery', async () => {
    // Tool names are not bounded anywhere on the pin/webhook path (history cuts them at 200
    // characters, pins and webhooks do not). The edge reads a tools/list answer of up to 16 MiB.
    const account = await store.createAccount({ email: 'evil@example.com', slug: 'evil' })
    const created = await store.createTunnel({ accountId: account.id, name: 'tools' })
    const tunnel = { id: created.tunnel.id, accountId: account.id }
    const sink = await receiver()
    const endpoints = new WebhookEndpointStore(store.db, () => new Date(), { allowPrivate: true })
    for (let i = 0; i < 10; i++) await endpoints.create(account.id, { url: `${sink.url}/${i}` })
    let clock = Date.parse('2026-05-06T07:08:09.000Z')
    const pins = new ToolPins({
      store: store.toolPins,
      events: new LocalClusterEvents(),
      log: silentLogger,
      onChange: async (c) => {
        await emitToolChanged(store.db, { ...c, tunnelName: null })
      },
      dashboardUrl: 'https://burrow.example/dashboard/tunnels/',
      now: () => clock,
    })
    const name = 'n'.repeat(4 * 1024 * 1024)
    for (const round of [0, 1]) {
      pins.observe(tunnel, await pins.state(tunnel.id), [tool(name, `round ${round}`)], PAGE)
      await pins.settled()
      clock += 1000
    }
    const rows = await store.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.sum<number | string>(eb.fn('length', ['payload'])).as('bytes'))
      .where('account_id', '=', account.id)
      .executeTakeFirstOrThrow()
    const bytes = Number(rows.bytes)
    // 10 deliveries of 4 MiB each from one changed tool; the dispatcher then reads 50 due rows
    // (up to 800 MiB with 16 MiB names) into memory per pass, and GET /api/webhooks/:id/deliveries
    // returns 50 payloads in one JSON answer.
    assert.ok(
      bytes < 1024 * 1024,
      `one changed tool queued ${(bytes / 1024 / 1024).toFixed(1)} MiB of webhook payloads`,
    )
  })

  it("one account's backlog does not hold back another account's webhook", async () => {
    // Account A (hostile): endpoints that never answer, and a backlog of events (as the test
    // above makes from one tools/list). Account B: an ordinary receiver.
    const now = Date.parse('2026-05-06T07:08:09.000Z')
    const a = await store.createAccount({ email: 'a@example.com', slug: 'aaa' })
    const b = await store.createAccount({ email: 'b@example.com', slug: 'bbb' })
    const tarpit = await receiver()
    tarpit.respondAlways('hang')
    const victim = await receiver()
    const endpoints = new WebhookEndpointStore(store.db, () => new Date(now), {
      allowPrivate: true,
    })
    for (let i = 0; i < 10; i++) await endpoints.create(a.id, { url: `${tarpit.url}/${i}` })
    await endpoints.create(b.id, { url: victim.url })
    for (let i = 0; i < 20; i++) {
      await enqueueWebhookEvent(store.db, {
        accountId: a.id,
        type: 'tool.changed',
        id: `tc_flood_${i}`,
        data: { i },
        occurredAt: new Date(now - 1000 + i),
      })
    }
    await enqueueWebhookEvent(store.db, {
      accountId: b.id,
      type: 'quota.warning',
      id: 'qw_victim',
      data: {},
      occurredAt: new Date(now),
    })
    const dispatcher = new WebhookDispatcher({
      db: store.db,
      allowPrivate: true,
      log: silentLogger,
      now: () => new Date(now),
      random: () => 0.5,
      timeoutMs: 300, // 15 s in production
    })
    stops.push(() => dispatcher.stop())
    const started = Date.now()
    await dispatcher.runDue()
    const waited = Date.now() - started
    // The pass takes the 50 oldest due deliveries (all A's 200), 8 at a time, each held for the
    // whole deadline: B's event is not even looked at. In production, with 15 s deadlines,
    // 8 workers per node and A's 4,000 rows, B waits ~2 hours for its first attempt.
    assert.equal(
      victim.received.length,
      1,
      `B's webhook was not sent in the dispatcher's pass (${waited} ms spent on A's tarpit); the outbox has no per-account fairness`,
    )
  })

  it("sends another account's webhook while one account's endpoints hang", async () => {
    // Found by a review: a pass waited for its slowest attempt, so an account whose endpoints
    // never answer held every other account's deliveries for the whole deadline of each pass.
    // Started, the dispatcher takes the next due delivery as soon as a place is free, and one
    // account holds at most PER_ACCOUNT_AT_ONCE places.
    const now = Date.parse('2026-05-06T07:08:09.000Z')
    const a = await store.createAccount({ email: 'a@example.com', slug: 'aaa' })
    const b = await store.createAccount({ email: 'b@example.com', slug: 'bbb' })
    const tarpit = await receiver()
    tarpit.respondAlways('hang')
    const victim = await receiver()
    const endpoints = new WebhookEndpointStore(store.db, () => new Date(now), {
      allowPrivate: true,
    })
    for (let i = 0; i < 4; i++) await endpoints.create(a.id, { url: `${tarpit.url}/${i}` })
    await endpoints.create(b.id, { url: victim.url })
    // 120 deliveries due before B's: more than a read looks ahead for the free places, so B's
    // is found only because an account at its share is left out of the read.
    for (let i = 0; i < 30; i++) {
      await enqueueWebhookEvent(store.db, {
        accountId: a.id,
        type: 'tool.changed',
        id: `tc_hang_${i}`,
        data: { i },
        occurredAt: new Date(now - 1000 + i),
      })
    }
    const dispatcher = new WebhookDispatcher({
      db: store.db,
      allowPrivate: true,
      log: silentLogger,
      now: () => new Date(now),
      random: () => 0.5,
      timeoutMs: 600_000, // no attempt of A's ends while the test runs
      concurrency: 4,
    })
    stops.push(() => dispatcher.stop())
    dispatcher.start(20)
    await tarpit.waitFor(PER_ACCOUNT_AT_ONCE)
    // B's event comes after A's attempts are hanging: it is sent at once, in a place A's
    // backlog could not take.
    await enqueueWebhookEvent(store.db, {
      accountId: b.id,
      type: 'quota.warning',
      id: 'qw_while_hanging',
      data: {},
      occurredAt: new Date(now),
    })
    dispatcher.wake()
    await victim.waitFor(1)
    assert.equal(victim.received[0]?.headers['webhook-id'], 'qw_while_hanging')
    assert.equal(
      tarpit.received.length,
      PER_ACCOUNT_AT_ONCE,
      'A holds no more places than its share',
    )
  })

  // Without the fix the delivery never reaches the receiver: the limit turns that hang into a failure.
  it(
    'sends to a receiver host other accounts also use while their paths there hang',
    { timeout: 60_000 },
    async () => {
      // Found by a hostile review: the dispatcher opened at most 4 connections to one host, so
      // on a host that serves many users' receivers (a hosted request bin, one whose users set
      // how long it takes to answer) two accounts whose paths never answer took all 4, and every
      // other account's delivery to that host waited in line until its own deadline ran out.
      const now = Date.parse('2026-05-06T07:08:09.000Z')
      const shared = await receiver()
      shared.respondAlways((r) => (r.path.includes('/slow/') ? 'hang' : { status: 200 }))
      const endpoints = new WebhookEndpointStore(store.db, () => new Date(now), {
        allowPrivate: true,
      })
      const hostile = []
      for (const slug of ['aaa', 'ccc', 'ddd']) {
        const account = await store.createAccount({ email: `${slug}@example.com`, slug })
        hostile.push(account)
        for (let i = 0; i < 2; i++) {
          await endpoints.create(account.id, { url: `${shared.url}/slow/${slug}/${i}` })
        }
        for (let i = 0; i < 2; i++) {
          await enqueueWebhookEvent(store.db, {
            accountId: account.id,
            type: 'tool.changed',
            id: `tc_${slug}_${i}`,
            data: { i },
            occurredAt: new Date(now - 1000 + i),
          })
        }
      }
      const b = await store.createAccount({ email: 'b@example.com', slug: 'bbb' })
      await endpoints.create(b.id, { url: `${shared.url}/fast/b` })
      const dispatcher = new WebhookDispatcher({
        db: store.db,
        allowPrivate: true,
        log: silentLogger,
        now: () => new Date(now),
        random: () => 0.5,
        timeoutMs: 600_000, // no attempt ends by its deadline while the test runs
      })
      stops.push(() => dispatcher.stop())
      dispatcher.start(20)
      await shared.waitFor(hostile.length * PER_ACCOUNT_AT_ONCE)
      await enqueueWebhookEvent(store.db, {
        accountId: b.id,
        type: 'quota.warning',
        id: 'qw_shared_host',
        data: {},
        occurredAt: new Date(now),
      })
      dispatcher.wake()
      await shared.waitFor(hostile.length * PER_ACCOUNT_AT_ONCE + 1)
      const sent = shared.received.find((r) => r.path.endsWith('/fast/b'))
      assert.equal(sent?.headers['webhook-id'], 'qw_shared_host')
    },
  )

  it("names that never resolve neither disable another account's endpoint nor put its deliveries off without end (found by hostile reviews)", async () => {
    // burrowd looks up others' names a few at a time (a lookup holds a pool thread until the
    // resolver answers). Names whose nameservers never answer hold those places; another
    // account's lookup that waited its turn out was counted as its receiver's failure, and its
    // endpoint was disabled. Then it was given back uncounted, and unlogged, for ever: a
    // delivery put off for as long as the places stayed held was never sent, never failed.
    const victim = await store.createAccount({ email: 'victim@example.com', slug: 'victim' })
    const sink = await receiver()
    let clock = Date.parse('2026-05-06T07:08:09.000Z')
    const now = () => new Date(clock)
    const endpoints = new WebhookEndpointStore(store.db, now, { allowPrivate: true })
    const port = new URL(sink.url).port
    const endpoint = await endpoints.create(victim.id, {
      url: `http://hooks.victim.test:${port}/hooks`,
    })
    // A nameserver on loopback that never answers *.tarpit.test and gives every other name
    // 127.0.0.1; the resolver waits for it for longer than this test lasts.
    const dns = await startLoopbackDns((name) => name.endsWith('.tarpit.test'))
    stops.push(() => dns.close())
    const lookup = dns.lookup(10 * 60_000)
    // One place, taken by a name whose lookup does not end.
    const bounded = boundedResolve(lookup, 1, 20)
    const held = bounded('hooks.tarpit.test').catch((error: NodeJS.ErrnoException) => error.code)
    stops.push(async () => {
      lookup.cancel()
      await held
    })
    const askers: (string | undefined)[] = []
    const resolve = (hostname: string, who?: string) => {
      askers.push(who)
      return bounded(hostname, who)
    }
    const dispatcher = new WebhookDispatcher({
      db: store.db,
      allowPrivate: true,
      log: silentLogger,
      now,
      random: () => 0.5,
      resolve,
    })
    stops.push(() => dispatcher.stop())
    const event = (id: string) =>
      enqueueWebhookEvent(store.db, {
        accountId: victim.id,
        type: 'quota.warning',
        id,
        data: {},
        occurredAt: now(),
      })
    await event('qw_behind_tarpit')
    await dispatcher.runDue()
    const [putOff] = await endpoints.deliveries(victim.id, endpoint.id)
    assert.equal(putOff?.status, 'pending')
    assert.equal(putOff?.attempts, 0, 'not counted while put off for less than its next step')
    assert.match(putOff?.lastError ?? '', /^postponed since 2026-05-06T07:08:09\.000Z: not sent, /)
    assert.deepEqual(askers, [`account ${victim.id}`], "the lookup takes the account's turn")
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      clock += 24 * 60 * 60_000
      await dispatcher.runDue()
    }
    const waiting = await endpoints.get(victim.id, endpoint.id)
    assert.equal(waiting.disabledAt, null)
    assert.equal(waiting.consecutiveFailures, 0)
    const [entry] = await endpoints.deliveries(victim.id, endpoint.id)
    assert.equal(entry?.status, 'failed', 'put off for longer than each step, it counted')
    assert.equal(entry?.attempts, MAX_ATTEMPTS)
    assert.match(entry?.lastError ?? '', /^not sent: postponed since .* counted as attempt 8, not/)
    assert.equal(sink.received.length, 0)
    // The place is free again: the next event goes, its first attempt.
    lookup.cancel()
    assert.equal(await held, 'ECANCELLED')
    await event('qw_after_tarpit')
    await dispatcher.runDue()
    const sent = (await endpoints.deliveries(victim.id, endpoint.id)).find(
      (d) => d.status === 'delivered',
    )
    assert.equal(sent?.attempts, 1)
    assert.equal(sent?.lastError, null)
    assert.equal(sink.received[0]?.headers['webhook-id'], 'qw_after_tarpit')
  })
})
