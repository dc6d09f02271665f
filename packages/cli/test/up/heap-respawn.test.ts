// When `burrow up` starts itself again with its heap flags, when it runs where it is, and how the
// first process ends when the second did.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  exitStatusOf,
  mirrorsSignal,
  shouldRespawn,
  UP_NODE_FLAGS,
  type RespawnContext,
} from '../../src/up/heap-respawn.js'

const plain: RespawnContext = {
  env: {},
  execArgv: [],
  platform: 'linux',
  second: false,
  sea: false,
}

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
    assert.equal(shouldRespawn({ ...plain, second: true }), false)
    assert.equal(shouldRespawn({ ...plain, env: { BURROW_NO_RESPAWN: '1' } }), false)
    assert.equal(shouldRespawn({ ...plain, env: { BURROW_NO_RESPAWN: '0' } }), true)
  })

  it('runs here in the single executable, on Windows and under a debugger', () => {
    assert.equal(shouldRespawn({ ...plain, sea: true }), false)
    assert.equal(shouldRespawn({ ...plain, platform: 'win32' }), false)
    assert.equal(shouldRespawn({ ...plain, execArgv: ['--inspect=0'] }), false)
    assert.equal(shouldRespawn({ ...plain, execArgv: ['--inspect-brk'] }), false)
    assert.equal(
      shouldRespawn({ ...plain, env: { NODE_OPTIONS: '--max-old-space-size=99 --inspect' } }),
      false,
    )
    assert.equal(
      shouldRespawn({ ...plain, env: { NODE_OPTIONS: '--max-old-space-size=99' } }),
      true,
    )
  })
})

describe('the end of the first process', () => {
  it("exits with the second's status, or 128+n for the signal it died of", () => {
    assert.equal(exitStatusOf({ code: 0 }), 0)
    assert.equal(exitStatusOf({ code: 4 }), 4)
    assert.equal(exitStatusOf({ signal: 'SIGKILL' }), 137)
    assert.equal(exitStatusOf({ signal: 'SIGINT' }), 130)
  })

  it('dies of the same signal for a stop, not for a crash', () => {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL'] as const) assert.ok(mirrorsSignal(s))
    for (const s of ['SIGABRT', 'SIGSEGV', 'SIGBUS'] as const) assert.ok(!mirrorsSignal(s))
  })
})
