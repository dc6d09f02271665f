// Where each platform keeps per-user app data, from the variables a real process would have.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { detectContextFrom } from '../../src/detect/detect-context.js'

const from = (platform: NodeJS.Platform, env: Record<string, string>) =>
  detectContextFrom({ platform, env, cwd: '/w', homedir: '/fallback' })

describe('detectContextFrom', () => {
  it('macOS: $HOME and ~/Library/Application Support', () => {
    const ctx = from('darwin', { HOME: '/Users/me' })
    assert.equal(ctx.home, '/Users/me')
    assert.equal(ctx.appData, join('/Users/me', 'Library', 'Application Support'))
  })
  it('Windows: %USERPROFILE% and %APPDATA%, with AppData\\Roaming as fallback', () => {
    const ctx = from('win32', { USERPROFILE: '/u/me', HOME: '/other', APPDATA: '/roaming' })
    assert.equal(ctx.home, '/u/me')
    assert.equal(ctx.appData, '/roaming')
    assert.equal(
      from('win32', { USERPROFILE: '/u/me' }).appData,
      join('/u/me', 'AppData', 'Roaming'),
    )
  })
  it('Linux: $XDG_CONFIG_HOME, else ~/.config', () => {
    assert.equal(from('linux', { HOME: '/home/me', XDG_CONFIG_HOME: '/xdg' }).appData, '/xdg')
    assert.equal(from('linux', { HOME: '/home/me' }).appData, join('/home/me', '.config'))
  })
  it('falls back to the OS home when the variables are unset or empty', () => {
    assert.equal(from('linux', { HOME: '' }).home, '/fallback')
    assert.equal(from('win32', {}).home, '/fallback')
  })
})
