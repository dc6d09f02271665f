// Upstream names for detected servers (docs/detect.md): every detected server gets a valid, unique
// upstream name.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { UPSTREAM_NAME_PATTERN } from '@burrow/protocol'
import { sanitizeName, uniqueSanitizedNames } from '../../src/detect/sanitize-name.js'

describe('sanitizeName', () => {
  const cases: [string, string][] = [
    ['filesystem', 'filesystem'],
    ['My Server!', 'my-server-'],
    ['GitHub__Tools', 'github_tools'],
    ['a___b', 'a_b'],
    ['tools_', 'tools-'],
    ['tools__', 'tools-'],
    ['abcdefghijklmnopqrstuvwxyz01234_z', 'abcdefghijklmnopqrstuvwxyz01234-'],
    ['123abc', 'srv-123abc'],
    ['_private', 'srv-_private'],
    ['-dash', 'srv--dash'],
    ['@scope/pkg.v2', 'srv--scope-pkg-v2'],
    ['Café Ünïcode ✨', 'caf---n-code--'],
    ['🚀rocket', 'srv--rocket'],
    ['', 'srv-'],
    ['an-extremely-long-server-name-that-goes-past-thirty-two', 'an-extremely-long-server-name-th'],
    ['1234567890123456789012345678901234567890', 'srv-1234567890123456789012345678'],
  ]
  for (const [name, expected] of cases) {
    it(`${JSON.stringify(name)} → ${JSON.stringify(expected)}`, () => {
      const got = sanitizeName(name)
      assert.equal(got, expected)
      assert.match(got, UPSTREAM_NAME_PATTERN)
    })
  }
  it('treats é the same whether typed as one code point or e + accent', () => {
    assert.equal(sanitizeName('caf\u00e9'), sanitizeName('cafe\u0301'))
  })
})

describe('uniqueSanitizedNames', () => {
  it('keeps the first and numbers later clashes -2, -3', () => {
    assert.deepEqual(uniqueSanitizedNames(['GitHub', 'github', 'git hub', 'GITHUB']), [
      'github',
      'github-2',
      'git-hub',
      'github-3',
    ])
  })
  it('skips suffixed names another server already has', () => {
    assert.deepEqual(uniqueSanitizedNames(['docs', 'Docs', 'docs-2']), ['docs', 'docs-3', 'docs-2'])
  })
  it('stays within 32 characters when adding a suffix', () => {
    const long = 'x'.repeat(40)
    const names = uniqueSanitizedNames(Array.from({ length: 11 }, () => long))
    assert.equal(names[0], 'x'.repeat(32))
    assert.equal(names[1], `${'x'.repeat(30)}-2`)
    assert.equal(names[10], `${'x'.repeat(29)}-11`)
    for (const n of names) assert.match(n, UPSTREAM_NAME_PATTERN)
    assert.equal(new Set(names).size, names.length)
  })
  it('names 50,000 servers that sanitise alike, each once (the suffix search goes on, not over)', () => {
    // A repository's .mcp.json is read by `detect` and `up`: a search from -2 for each clash
    // took minutes on such a file.
    const names = Array.from({ length: 50_000 }, (_, i) => `s${i % 2 === 0 ? '!' : '\u4e00'}`)
    const unique = uniqueSanitizedNames(names)
    assert.equal(new Set(unique).size, names.length)
    assert.equal(unique[0], 's-')
    assert.equal(unique.at(-1), 's--50000')
  })
})
