import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { unencryptedBroker } from '../../src/up/unencrypted-broker.js'

describe('unencryptedBroker', () => {
  it('names plain WebSocket to another machine, and nothing else', () => {
    assert.equal(unencryptedBroker('ws://burrow.example.com'), 'ws://burrow.example.com')
    assert.equal(unencryptedBroker('ws://10.0.0.5:7100'), 'ws://10.0.0.5:7100')
    assert.equal(unencryptedBroker('wss://burrow.example.com'), null)
    assert.equal(unencryptedBroker('ws://127.0.0.1:7100'), null)
    assert.equal(unencryptedBroker('ws://localhost:7100'), null)
    assert.equal(unencryptedBroker('ws://[::1]:7100'), null)
  })
})
