// Which configuration files belong to the project in the working directory, not to the user.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { isProjectFile } from '../../src/detect/project-file.js'

describe('isProjectFile', () => {
  const ctx = { cwd: '/home/ada/src/clone', home: '/home/ada' }

  it("is a file under the working directory, not the user's own", () => {
    assert.equal(isProjectFile('/home/ada/src/clone/.mcp.json', ctx), true)
    assert.equal(isProjectFile('/home/ada/src/clone/.vscode/mcp.json', ctx), true)
    assert.equal(isProjectFile('.cursor/mcp.json', ctx), true, 'relative to the working directory')
    assert.equal(isProjectFile('/home/ada/.claude.json', ctx), false)
    assert.equal(isProjectFile('/home/ada/.cursor/mcp.json', ctx), false)
    assert.equal(isProjectFile('/home/ada/src/clone-other/.mcp.json', ctx), false)
    assert.equal(isProjectFile('/home/ada/src/clone/../x/.mcp.json', ctx), false)
  })

  it('takes a home that is not an absolute path (HOME= or HOME=.) for no home', () => {
    for (const home of ['', '.', 'src']) {
      assert.equal(isProjectFile('.mcp.json', { cwd: '/home/ada/src/clone', home }), true, home)
    }
  })

  it('is never a file when the working directory is home or above it', () => {
    assert.equal(
      isProjectFile('/home/ada/.mcp.json', { cwd: '/home/ada', home: '/home/ada' }),
      false,
    )
    assert.equal(
      isProjectFile('/home/ada/.mcp.json', { cwd: '/home/ada/', home: '/home/ada' }),
      false,
    )
    assert.equal(
      isProjectFile('/home/ada/.cursor/mcp.json', { cwd: '/', home: '/home/ada' }),
      false,
    )
    assert.equal(
      isProjectFile('/home/ada/.gemini/settings.json', { cwd: '/home', home: '/home/ada' }),
      false,
    )
  })

  it('compares real paths: HOME through a link to the working directory is still home', () => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-home-link-'))
    try {
      const realHome = join(dir, 'real-home')
      mkdirSync(realHome)
      symlinkSync(realHome, join(dir, 'home'))
      const ctx = { cwd: realHome, home: join(dir, 'home') }
      assert.equal(isProjectFile(join(realHome, '.mcp.json'), ctx), false)
      mkdirSync(join(realHome, 'clone'))
      const clone = { cwd: join(realHome, 'clone'), home: join(dir, 'home') }
      assert.equal(isProjectFile(join(realHome, 'clone', '.mcp.json'), clone), true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
