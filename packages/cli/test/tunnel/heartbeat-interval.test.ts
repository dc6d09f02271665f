// The heartbeat interval `up` keeps, whatever WELCOME asks: never one a timer cannot hold.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import {
  heartbeatInterval,
  MAX_HEARTBEAT_MS,
  MIN_HEARTBEAT_MS,
} from '../../src/tunnel/heartbeat-interval.js'

it('keeps what the broker asks within bounds', () => {
  assert.equal(heartbeatInterval(15_000), 15_000)
  assert.equal(heartbeatInterval(0), MIN_HEARTBEAT_MS)
  assert.equal(heartbeatInterval(-5), MIN_HEARTBEAT_MS)
  assert.equal(heartbeatInterval(MAX_HEARTBEAT_MS + 1), MAX_HEARTBEAT_MS)
})

it('a value past what a timer holds, Infinity (JSON reads 1e400 so) or NaN is the longest', () => {
  assert.equal(heartbeatInterval(3_000_000_000), MAX_HEARTBEAT_MS)
  assert.equal(heartbeatInterval(JSON.parse('1e400') as number), MAX_HEARTBEAT_MS)
  assert.equal(heartbeatInterval(Number.NaN), MAX_HEARTBEAT_MS)
  assert.ok(MAX_HEARTBEAT_MS <= 2 ** 31 - 1)
})
