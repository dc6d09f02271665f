/** Where the update check keeps its state on each platform. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { userCacheDir } from '../../src/update/user-cache-dir.js'

describe('userCacheDir', () => {
  it('uses $XDG_CACHE_HOME/burrow when it is an absolute path, else ~/.cache/burrow', () => {
    assert.equal(
      userCacheDir({ XDG_CACHE_HOME: '/var/cache/ann' }, 'linux', '/home/ann'),
      '/var/cache/ann/burrow',
    )
    assert.equal(userCacheDir({}, 'linux', '/home/ann'), '/home/ann/.cache/burrow')
    assert.equal(
      userCacheDir({ XDG_CACHE_HOME: '' }, 'linux', '/home/ann'),
      '/home/ann/.cache/burrow',
    )
    assert.equal(
      userCacheDir({ XDG_CACHE_HOME: 'rel' }, 'linux', '/home/ann'),
      '/home/ann/.cache/burrow',
    )
  })

  it('uses ~/Library/Caches/burrow on macOS', () => {
    assert.equal(userCacheDir({}, 'darwin', '/Users/ann'), '/Users/ann/Library/Caches/burrow')
  })

  it('uses %LOCALAPPDATA%\\burrow on Windows', () => {
    assert.equal(
      userCacheDir({ LOCALAPPDATA: 'C:\\Users\\Ann\\AppData\\Local' }, 'win32', 'C:\\Users\\Ann'),
      'C:\\Users\\Ann\\AppData\\Local\\burrow',
    )
    assert.equal(
      userCacheDir({}, 'win32', 'C:\\Users\\Ann'),
      'C:\\Users\\Ann\\AppData\\Local\\burrow',
    )
  })
})
