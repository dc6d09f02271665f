// Pinned tool definitions: canonical hashes, the field-by-field diff, and hostile definitions
// (deep, huge) that neither crash nor bloat.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { diffDefinitions } from '../../src/governance/definition-diff.js'
import {
  canonicalJson,
  MAX_DEFINITION_CHARS,
  pinTool,
} from '../../src/governance/tool-definition.js'

const read = {
  name: 'read_file',
  description: 'Read a file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
}

describe('pinned tool definitions', () => {
  it('hash canonical JSON: key order and unpinned fields do not matter', () => {
    const a = pinTool(read)!
    const b = pinTool({
      inputSchema: { required: ['path'], properties: { path: { type: 'string' } }, type: 'object' },
      description: 'Read a file',
      name: 'read_file',
      _meta: { ignored: true },
    })!
    assert.equal(a.hash, b.hash)
    assert.equal(canonicalJson({ b: 1, a: [2, { d: 1, c: 0 }] }), '{"a":[2,{"c":0,"d":1}],"b":1}')
    assert.equal(pinTool({ description: 'no name' }), null)
  })

  it('diffs definitions field by field', () => {
    const before = pinTool(read)!.definition
    const after = pinTool({
      ...read,
      description: 'Read it all',
      inputSchema: {
        ...read.inputSchema,
        properties: { path: { type: 'string' }, exfil: { type: 'string' } },
      },
    })!.definition
    assert.deepEqual(diffDefinitions(before, after), [
      { path: 'description', before: '"Read a file"', after: '"Read it all"' },
      { path: 'inputSchema.properties.exfil', before: null, after: '{"type":"string"}' },
    ])
  })

  it('survives hostile definitions: deep schemas and huge descriptions', () => {
    let deep: unknown = { type: 'string' }
    for (let i = 0; i < 10_000; i++) deep = { items: deep }
    const p = pinTool({ name: 'deep', inputSchema: deep })!
    assert.match(p.definition, /\$deep/)
    const changed = pinTool({ name: 'deep', inputSchema: { items: deep } })!
    assert.notEqual(p.hash, changed.hash)
    const huge = pinTool({ name: 'huge', description: 'x'.repeat(1_000_000) })!
    assert.equal(huge.cut, true)
    assert.equal(huge.definition.length, MAX_DEFINITION_CHARS)
    const bigger = pinTool({ name: 'huge', description: 'x'.repeat(1_000_001) })!
    assert.notEqual(huge.hash, bigger.hash, 'the hash covers the whole definition')
    assert.ok(diffDefinitions(huge.definition, bigger.definition).length <= 200)
  })
})
