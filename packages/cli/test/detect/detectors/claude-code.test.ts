// Claude Code's local scope: which `projects` key is the working directory.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { sameProjectPath } from '../../../src/detect/detectors/claude-code.js'

describe('sameProjectPath', () => {
  it('matches exactly, ignoring a trailing slash', () => {
    assert.ok(sameProjectPath('/home/me/code/demo', '/home/me/code/demo', 'linux'))
    assert.ok(sameProjectPath('/home/me/code/demo/', '/home/me/code/demo', 'linux'))
    assert.ok(!sameProjectPath('/home/me/code/demo', '/home/me/code/demo2', 'linux'))
    assert.ok(!sameProjectPath('/home/me/code/Demo', '/home/me/code/demo', 'linux'))
    assert.ok(sameProjectPath('/', '/', 'linux'))
  })
  it('on Windows ignores separators and case', () => {
    assert.ok(sameProjectPath('C:/Users/Me/code/demo', 'c:\\users\\me\\code\\demo', 'win32'))
    assert.ok(sameProjectPath('C:\\Users\\me\\code\\demo\\', 'C:\\Users\\me\\code\\demo', 'win32'))
  })
})

describe('sameProjectPath on a hostile key', () => {
  it('compares a key of 1 MiB of slashes in one pass', () => {
    // `/(.)\/+$/` tried each slash of the run as the last: hours for a key of a few MiB.
    const key = `/a${'/'.repeat(1024 * 1024)}b`
    assert.ok(!sameProjectPath(key, '/a/b', 'linux'))
    assert.ok(sameProjectPath(`/a/b${'/'.repeat(1024 * 1024)}`, '/a/b', 'linux'))
    assert.ok(sameProjectPath('//', '/', 'linux'))
  })
})
