/** Semantic version precedence, as the update check uses it. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { compareVersions, isNewerVersion, isSemver } from '../../src/update/compare-versions.js'

describe('compareVersions', () => {
  it('compares numerically, field by field', () => {
    assert.equal(compareVersions('0.2.0', '0.1.0'), 1)
    assert.equal(compareVersions('0.10.0', '0.9.9'), 1)
    assert.equal(compareVersions('1.0.0', '1.0.0'), 0)
    assert.equal(compareVersions('1.2.3', '1.2.10'), -1)
    assert.equal(compareVersions('v2.0.0', '1.99.99'), 1)
  })

  it('orders pre-releases before their release, as semver.org §11 does', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
    ]
    for (let i = 1; i < ordered.length; i++) {
      assert.equal(
        compareVersions(ordered[i - 1]!, ordered[i]!),
        -1,
        `${ordered[i - 1]} < ${ordered[i]}`,
      )
      assert.equal(compareVersions(ordered[i]!, ordered[i - 1]!), 1)
    }
  })

  it('ignores build metadata and refuses what is not a version', () => {
    assert.equal(compareVersions('1.0.0+abc', '1.0.0+def'), 0)
    assert.equal(compareVersions('1.0', '1.0.0'), null)
    assert.equal(compareVersions('unknown', '1.0.0'), null)
    assert.equal(isSemver('01.0.0'), false)
    assert.equal(isSemver('1.0.0-rc.1+b.2'), true)
  })

  it('isNewerVersion is false for older, equal and unparsable versions', () => {
    assert.equal(isNewerVersion('0.2.0', '0.1.0'), true)
    assert.equal(isNewerVersion('0.1.0', '0.1.0'), false)
    assert.equal(isNewerVersion('0.0.9', '0.1.0'), false)
    assert.equal(isNewerVersion('garbage', '0.1.0'), false)
  })
})
