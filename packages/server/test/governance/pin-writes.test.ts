/**
 * The rug-pull pins' write queue when a write fails: a write made while the owner turned
 * zero-knowledge on is followed by the erasure of the definitions it wrote, also when the write
 * failed. A failure no longer means nothing was written: a statement that timed out on a stalled
 * PostgreSQL may land all the same (store/bounded-pg-pool.ts), and a write of several statements
 * may fail after the first; the erasure was skipped, and the definitions stayed stored in
 * zero-knowledge mode.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { PinWrites } from '../../src/governance/pin-writes.js'
import { QUERY_TIMEOUT_MESSAGE } from '../../src/store/bounded-pg-pool.js'
import type { ToolPinsStore } from '../../src/store/tool-pins-store.js'

describe('PinWrites', () => {
  /** A store that keeps whether the tunnel's definitions are stored. */
  const storeOf = () => {
    const stored = new Set<string>()
    const store = {
      eraseDefinitions: async (tunnelId: string) => {
        stored.delete(tunnelId)
      },
    } as unknown as ToolPinsStore
    return { stored, store }
  }

  it('erases what a failed write may have stored once zero-knowledge is on', async () => {
    const { stored, store } = storeOf()
    const writes = new PinWrites({ store, log: silentLogger, zeroKnowledgeNow: () => true })
    writes.write('tun_1', async () => {
      stored.add('tun_1') // landed on the server…
      throw new Error(QUERY_TIMEOUT_MESSAGE) // …though burrowd stopped waiting for it
    })
    await writes.settled()
    assert.equal(stored.has('tun_1'), false)
  })

  it('erases nothing when zero-knowledge is off, and goes on after a failure', async () => {
    const { stored, store } = storeOf()
    const writes = new PinWrites({ store, log: silentLogger, zeroKnowledgeNow: () => false })
    writes.write('tun_1', async () => {
      stored.add('tun_1')
      throw new Error(QUERY_TIMEOUT_MESSAGE)
    })
    writes.write('tun_1', async () => {
      stored.add('tun_1:second')
    })
    await writes.settled()
    assert.deepEqual([...stored].sort(), ['tun_1', 'tun_1:second'])
  })
})
