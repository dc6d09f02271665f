// When `burrow up` starts itself again with its heap flags, and when it runs where it is.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  RESPAWNED_ENV,
  shouldRespawn,
  UP_NODE_FLAGS,
  type RespawnContext,
} from '../../src/up/heap-respawn.js'

const plain: RespawnContext = { env: {}, execArgv: [], platform: 'linux', sea: false }

describe('shouldRespawn', () => {
  it('starts again when the process lacks the flags', () => {
    assert.equal(shouldRespawn(plain), true)
    assert.equal(shouldRespawn({ ...plain, platform: 'darwin', execArgv: ['--import', 'x'] }), true)
  })

  it('runs here when the flags are given, whatever their value', () => {
    assert.equal(shouldRespawn({ ...plain, execArgv: [...UP_NODE_FLAGS] }), false)
    assert.equal(shouldRespawn({ ...plain, execArgv: ['--initial-old-space-size=128'] }), false)
  })

  it('never starts a third process, and can be turned off', () => {
    assert.equal(shouldRespawn({ ...plain, env: { [RESPAWNED_ENV]: '1' } }), false)
    assert.equal(shouldRespawn({ ...plain, env: { BURROW_NO_RESPAWN: '1' } }), false)
    assert.equal(shouldRespawn({ ...plain, env: { BURROW_NO_RESPAWN: '0' } }), true)
  })

  it('runs here in the single executable and on Windows', () => {
    assert.equal(shouldRespawn({ ...plain, sea: true }), false)
    assert.equal(shouldRespawn({ ...plain, platform: 'win32' }), false)
  })
})
