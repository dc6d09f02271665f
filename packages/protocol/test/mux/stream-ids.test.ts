// The stream ids of one connection: the broker opens odd ids and the client even ones, in order;
// only the broker opens streams; an id is "seen" once either side opened it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { StreamIds } from '../../src/mux/stream-ids.js'

describe('StreamIds', () => {
  it('gives the broker odd ids and the client even ones, in order', () => {
    const broker = new StreamIds('broker')
    assert.deepEqual([broker.takeLocal(), broker.takeLocal(), broker.takeLocal()], [1, 3, 5])
    const client = new StreamIds('client')
    assert.deepEqual([client.takeLocal(), client.takeLocal()], [2, 4])
    assert.equal(broker.isLocal(7), true)
    assert.equal(client.isLocal(7), false)
  })

  it('lets only the broker open streams, each id once and in order', () => {
    const client = new StreamIds('client')
    assert.equal(client.acceptsOpen(1), true)
    assert.equal(client.acceptsOpen(2), false, "the client's own parity")
    client.remoteOpened(5)
    assert.equal(client.acceptsOpen(5), false, 'used up')
    assert.equal(client.acceptsOpen(3), false, 'out of order')
    assert.equal(client.acceptsOpen(7), true)
    assert.equal(new StreamIds('broker').acceptsOpen(2), false, 'clients open no streams')
  })

  it('knows which ids were opened by either side', () => {
    const client = new StreamIds('client')
    assert.equal(client.seen(1), false)
    client.remoteOpened(3)
    assert.equal(client.seen(1), true, 'skipped ids below the last are used up too')
    assert.equal(client.seen(3), true)
    assert.equal(client.seen(5), false)
    assert.equal(client.seen(2), false)
    client.takeLocal()
    assert.equal(client.seen(2), true)
    assert.equal(client.seen(4), false)
  })
})
