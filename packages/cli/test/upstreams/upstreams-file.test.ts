// Accepted upstreams files: several entries become aggregator mode, one entry collapses to
// single-upstream mode.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseUpstreamsFile } from '../../src/upstreams/upstreams-file.js'
import { upstreamsFromFlags } from '../../src/upstreams/upstream-flags.js'

describe('parseUpstreamsFile', () => {
  it('several entries, in file order, with names', () => {
    const specs = parseUpstreamsFile(
      'f.toml',
      '[upstreams.files]\nstdio = "npx files --root \\"My Docs\\""\n\n[upstreams.docs]\nhttp = "http://127.0.0.1:3000/mcp"\n',
    )
    assert.deepEqual(specs, [
      { kind: 'stdio', name: 'files', command: 'npx files --root "My Docs"' },
      { kind: 'http', name: 'docs', url: 'http://127.0.0.1:3000/mcp' },
    ])
  })
  it('refuses names that would make prefixed names ambiguous', () => {
    const text = '[upstreams.a]\nstdio = "node a.js"\n[upstreams.a__b]\nstdio = "node b.js"\n'
    assert.throws(
      () => parseUpstreamsFile('u.toml', text),
      /u\.toml: upstream names "a" and "a__b" are ambiguous/,
    )
  })

  it('a one-entry file collapses to single-upstream mode (no name)', () => {
    assert.deepEqual(
      parseUpstreamsFile('f.toml', '[upstreams.only]\nhttp = "http://127.0.0.1:3000/mcp"\n'),
      [{ kind: 'http', name: null, url: 'http://127.0.0.1:3000/mcp' }],
    )
  })
})

describe('upstreamsFromFlags', () => {
  it('one bare value is single-upstream mode, even with "=" inside', () => {
    assert.deepEqual(upstreamsFromFlags([{ flag: '--stdio', value: 'node s.js --port=3' }]), [
      { kind: 'stdio', name: null, command: 'node s.js --port=3' },
    ])
  })
  it('mixed flags in aggregator mode keep their order', () => {
    const specs = upstreamsFromFlags([
      { flag: '--upstream', value: 'docs=http://127.0.0.1:3000/mcp?x=1' },
      { flag: '--stdio', value: 'files=npx files' },
    ])
    assert.deepEqual(specs, [
      { kind: 'http', name: 'docs', url: 'http://127.0.0.1:3000/mcp?x=1' },
      { kind: 'stdio', name: 'files', command: 'npx files' },
    ])
  })
})
