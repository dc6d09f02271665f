/**
 * The page's static files: every script is a valid ES module, none inserts markup (recorded data
 * must only ever enter the page as text), and the Config script exists only for admin.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { pageAsset } from '../../src/inspector/page-assets.js'
import { inspectorPage } from '../../src/inspector/page-html.js'

const SCRIPTS = ['/js/dom.js', '/js/main.js', '/js/detail.js', '/js/config.js']

describe('inspector page assets', () => {
  it('serves scripts that parse as ES modules', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-assets-'))
    try {
      for (const path of SCRIPTS) {
        const asset = pageAsset(path, true)
        assert.ok(asset, path)
        assert.equal(asset.type, 'text/javascript')
        const file = join(dir, path.replace(/\//g, '_') + '.mjs')
        await writeFile(file, asset.text)
        const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' })
        assert.equal(check.status, 0, `${path}: ${check.stderr}`)
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('never inserts markup from scripts', () => {
    for (const path of SCRIPTS) {
      const text = pageAsset(path, true)!.text
      assert.doesNotMatch(
        text,
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/,
        path,
      )
    }
  })

  it('has the Config script and tab only for admin', () => {
    assert.equal(pageAsset('/js/config.js', false), null)
    assert.equal(pageAsset('/../js/main.js', false), null)
    assert.equal(pageAsset('/toString', false), null)
    assert.doesNotMatch(inspectorPage({ admin: false }), /config/i)
    assert.match(inspectorPage({ admin: true }), /data-tab="config"/)
  })
})
