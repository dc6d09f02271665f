/**
 * Tests of parsing Paddle webhook bodies: subscription events become typed snapshots (with
 * Paddle's microsecond times), other events carry no subscription, and every malformed body is
 * a PaddleEventError naming the field.
 */

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  isPlanEvent,
  PaddleEventError,
  parsePaddleEvent,
  parsePaddleSubscription,
} from '../../src/billing/paddle-event.js'
import { eventBody, subscriptionData, TEST_PRICES } from '../helpers/paddle-events.js'

function parse(body: unknown) {
  return parsePaddleEvent(Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)))
}

function malformed(body: unknown, fragment: string): void {
  assert.throws(
    () => parse(body),
    (error: unknown) => {
      assert.ok(
        error instanceof PaddleEventError,
        `expected PaddleEventError, got ${String(error)}`,
      )
      assert.equal(error.code, 'malformed_event')
      assert.ok(error.message.includes(fragment), `"${error.message}" lacks "${fragment}"`)
      return true
    },
  )
}

describe('parsePaddleEvent', () => {
  it('parses a subscription event into a typed snapshot', () => {
    const cancelAt = new Date('2026-04-04T00:00:00.000Z')
    const body = eventBody(
      'subscription.updated',
      subscriptionData({ id: 'sub_1', accountId: 'acc_1', scheduledCancelAt: cancelAt }),
      { eventId: 'evt_1', occurredAt: new Date('2026-03-05T06:07:08.009Z') },
    )
    assert.deepEqual(parse(body), {
      eventId: 'evt_1',
      eventType: 'subscription.updated',
      occurredAt: new Date('2026-03-05T06:07:08.009Z'),
      occurredAtMicros: Date.parse('2026-03-05T06:07:08.009Z') * 1000,
      subscription: {
        id: 'sub_1',
        customerId: 'ctm_01test',
        status: 'active',
        priceIds: [TEST_PRICES.pro_monthly],
        customData: { account_id: 'acc_1' },
        currentPeriodEndsAt: new Date('2026-04-04T00:00:00.000Z'),
        scheduledChange: { action: 'cancel', effectiveAt: cancelAt },
        updatedAt: new Date('2026-03-04T00:00:00.000Z'),
        updatedAtMicros: Date.parse('2026-03-04T00:00:00.000Z') * 1000,
      },
      createdFrom: null,
    })
  })

  it('reads the transaction a subscription.created came from, and only there', () => {
    const created = eventBody(
      'subscription.created',
      subscriptionData({ accountId: 'acc_1', transactionId: 'txn_1' }),
    )
    assert.equal(parse(created).createdFrom, 'txn_1')
    const updated = eventBody(
      'subscription.updated',
      subscriptionData({ accountId: 'acc_1', transactionId: 'txn_1' }),
    )
    assert.equal(parse(updated).createdFrom, null)
    const bad = eventBody('subscription.created', {
      ...subscriptionData({ accountId: 'acc_1' }),
      transaction_id: 7,
    })
    assert.throws(() => parse(bad), /data\.transaction_id must be a string/)
  })

  it("reads Paddle's microsecond times", () => {
    const body = {
      ...eventBody('transaction.completed', {}),
      occurred_at: '2024-04-12T10:18:49.621022Z',
    }
    assert.deepEqual(parse(body).occurredAt, new Date('2024-04-12T10:18:49.621Z'))
    assert.equal(parse(body).occurredAtMicros, Date.parse('2024-04-12T10:18:49Z') * 1000 + 621_022)
  })

  it('gives other events no subscription, whatever their data', () => {
    const event = parse(eventBody('transaction.completed', { id: 'txn_1', status: 'completed' }))
    assert.equal(event.subscription, undefined)
    assert.equal(event.eventType, 'transaction.completed')
  })

  it('treats missing or odd custom data as naming no account', () => {
    const unstorable = [{ account_id: 'acc_\u0000' }, { account_id: 'acc_\ud800' }]
    for (const customData of [null, {}, { account_id: 5 }, { account_id: '' }, ...unstorable]) {
      const event = parse(eventBody('subscription.created', subscriptionData({ customData })))
      assert.deepEqual(event.subscription?.customData, {})
    }
  })

  it('refuses malformed bodies, naming the field', () => {
    malformed('not json', 'not JSON')
    malformed('[]', 'the event must be an object')
    malformed({ ...eventBody('x', {}), event_id: 7 }, 'event_id')
    malformed({ ...eventBody('x', {}), event_type: '' }, 'event_type')
    malformed({ ...eventBody('x', {}), event_id: 'evt_\u0000' }, 'event_id')
    malformed({ ...eventBody('x', {}), occurred_at: 'yesterday' }, 'occurred_at')
    malformed({ ...eventBody('x', {}), occurred_at: '2026-02-30T00:00:00Z' }, 'occurred_at')
    malformed(eventBody('subscription.created', null), 'data must be an object')
    malformed(
      eventBody('subscription.created', subscriptionData({ status: 'unpaid' })),
      'data.status',
    )
    malformed(
      eventBody('subscription.created', { ...subscriptionData(), id: undefined }),
      'data.id',
    )
    malformed(eventBody('subscription.created', { ...subscriptionData(), items: [] }), 'data.items')
    malformed(
      eventBody('subscription.created', { ...subscriptionData(), items: [{ price: {} }] }),
      'data.items[0].price.id',
    )
    malformed(
      eventBody('subscription.created', {
        ...subscriptionData(),
        scheduled_change: { action: 'explode', effective_at: '2026-04-04T00:00:00Z' },
      }),
      'data.scheduled_change.action',
    )
    malformed(
      eventBody('subscription.created', {
        ...subscriptionData(),
        current_billing_period: { starts_at: '2026-03-04T00:00:00Z' },
      }),
      'data.current_billing_period.ends_at',
    )
    malformed(
      eventBody('subscription.created', { ...subscriptionData(), custom_data: 'acc_1' }),
      'data.custom_data',
    )
  })
})

describe('parsePaddleSubscription', () => {
  it('names the entity as the caller does in errors', () => {
    assert.throws(() => parsePaddleSubscription({}, 'response'), /response\.status/)
  })
})

describe('isPlanEvent', () => {
  it('is true for the subscription events that change plans only', () => {
    for (const type of [
      'created',
      'activated',
      'updated',
      'trialing',
      'past_due',
      'paused',
      'resumed',
      'canceled',
      'imported',
    ]) {
      assert.ok(isPlanEvent(`subscription.${type}`), type)
    }
    assert.equal(isPlanEvent('transaction.completed'), false)
    assert.equal(isPlanEvent('subscription.something_new'), false)
  })
})
