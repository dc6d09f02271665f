import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { LogLevels, logLevelRank, logLevelRefusal } from '../../src/front/log-levels.js'

describe('LogLevels', () => {
  it('asks the server for the most verbose level a live session set', () => {
    const levels = new LogLevels()
    assert.equal(levels.serverLevel, undefined)
    levels.set('quiet', 'emergency')
    levels.set('loud', 'debug')
    levels.set('mid', 'warning')
    assert.equal(levels.serverLevel, 'debug')
    assert.equal(levels.drop('loud'), true, 'the server goes back to warning')
    assert.equal(levels.serverLevel, 'warning')
    assert.equal(levels.drop('quiet'), false, 'warning stays')
    assert.equal(levels.drop('nobody'), false)
    assert.equal(levels.drop('mid'), false, 'no session is left to ask for a level')
    assert.equal(levels.serverLevel, undefined)
  })

  it('lets each session hear the lines at or above its own level', () => {
    const levels = new LogLevels()
    levels.set('mid', 'warning')
    assert.equal(levels.hears('mid', 'info'), false)
    assert.equal(levels.hears('mid', 'warning'), true)
    assert.equal(levels.hears('mid', 'alert'), true)
    assert.equal(levels.hears('mid', 'custom'), true, 'a line of no known level is passed on')
    assert.equal(levels.hears('plain', 'debug'), true, 'a session that set none hears all')
  })

  it('counts a session once however often it sets its level', () => {
    const levels = new LogLevels()
    for (let i = 0; i < 1000; i++) levels.set('a', i % 2 === 0 ? 'debug' : 'error')
    levels.set('b', 'info')
    assert.equal(levels.serverLevel, 'info')
    assert.equal(levels.drop('a'), false)
    assert.equal(levels.drop('b'), false)
    assert.equal(levels.serverLevel, undefined)
    levels.set('c', 'critical')
    levels.clear()
    assert.equal(levels.serverLevel, undefined)
    assert.equal(levels.hears('c', 'debug'), true)
  })

  it('refuses levels that are not MCP’s', () => {
    assert.equal(logLevelRefusal('notice'), null)
    for (const bad of [
      'verbose',
      'DEBUG',
      '',
      3,
      null,
      undefined,
      { level: 'info' },
      'constructor',
    ]) {
      assert.match(String(logLevelRefusal(bad)), /needs a "level" among debug, info/)
      assert.equal(logLevelRank(bad), -1)
    }
  })
})
