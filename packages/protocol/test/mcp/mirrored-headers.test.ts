/** The 2026-07-28 mirrored headers and request metadata, checked against the body. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeHeaderValue, mirroredHeaderProblem } from '../../src/mcp/mirrored-headers.js'
import { META_KEY, requestMetaOf } from '../../src/mcp/request-meta.js'

describe('mirrored headers', () => {
  it('accept matching values, trimmed, and base64 sentinels', () => {
    const call = { name: 'café', arguments: {} }
    const encoded = `=?base64?${Buffer.from('café').toString('base64')}?=`
    assert.equal(decodeHeaderValue(encoded), 'café')
    assert.equal(
      mirroredHeaderProblem(
        { 'mcp-method': ' tools/call ', 'mcp-name': encoded },
        'tools/call',
        call,
      ),
      null,
    )
    const read = { uri: 'file:///x' }
    assert.equal(
      mirroredHeaderProblem(
        { 'mcp-method': 'resources/read', 'mcp-name': ' file:///x ' },
        'resources/read',
        read,
      ),
      null,
    )
    assert.equal(mirroredHeaderProblem({ 'mcp-method': 'tools/list' }, 'tools/list', {}), null)
  })

  it('ask no Mcp-Name of methods named like inherited properties', () => {
    for (const method of ['toString', 'constructor', '__proto__']) {
      const params = { [String(Object.prototype[method as keyof object])]: 'x', undefined: 'y' }
      assert.equal(mirroredHeaderProblem({ 'mcp-method': method }, method, params), null, method)
    }
  })

  it('name what is missing or different, case-sensitively', () => {
    assert.match(mirroredHeaderProblem({}, 'tools/list', {})!, /Mcp-Method header is missing/)
    assert.match(
      mirroredHeaderProblem({ 'mcp-method': 'TOOLS/LIST' }, 'tools/list', {})!,
      /does not match/,
    )
    const call = { name: 'echo' }
    assert.match(
      mirroredHeaderProblem({ 'mcp-method': 'tools/call' }, 'tools/call', call)!,
      /Mcp-Name header is missing/,
    )
    assert.match(
      mirroredHeaderProblem(
        { 'mcp-method': 'tools/call', 'mcp-name': 'Echo' },
        'tools/call',
        call,
      )!,
      /does not match/,
    )
    assert.match(
      mirroredHeaderProblem(
        { 'mcp-method': 'tools/call', 'mcp-name': '=?base64?%%?=' },
        'tools/call',
        call,
      )!,
      /does not match|not valid/,
    )
  })

  it('read the request metadata under the protocol namespace', () => {
    const meta = requestMetaOf({
      _meta: {
        [META_KEY.protocolVersion]: '2026-07-28',
        [META_KEY.clientCapabilities]: { elicitation: {} },
        [META_KEY.clientInfo]: { name: 'x', version: '1' },
      },
    })
    assert.equal(meta.protocolVersion, '2026-07-28')
    assert.deepEqual(meta.clientCapabilities, { elicitation: {} })
    assert.equal(meta.logLevel, null)
    assert.deepEqual(requestMetaOf(undefined), {
      protocolVersion: null,
      clientCapabilities: null,
      clientInfo: null,
      logLevel: null,
    })
  })
})
