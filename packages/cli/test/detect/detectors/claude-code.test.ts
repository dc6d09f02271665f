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
