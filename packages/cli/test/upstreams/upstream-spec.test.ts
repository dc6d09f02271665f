/**
 * How an upstream is described in what burrow up prints (its start, a change of layout): an HTTP
 * server's URL without its credentials or query, which a service's log would otherwise keep.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { describeUpstream } from '../../src/upstreams/upstream-spec.js'

describe('describeUpstream', () => {
  it('shows an HTTP server without its credentials or query', () => {
    const url = 'http://user:s3cret@127.0.0.1:3000/mcp?api_key=k3y#frag'
    const shown = describeUpstream({ kind: 'http', name: 'a', url })
    assert.equal(shown, 'http://127.0.0.1:3000/mcp?…')
    assert.doesNotMatch(shown, /s3cret|k3y|user/)
  })

  it('shows a plain URL as it is', () => {
    const url = 'http://127.0.0.1:3000/mcp'
    assert.equal(describeUpstream({ kind: 'http', name: null, url }), url)
  })

  it('shows a stdio command', () => {
    assert.equal(
      describeUpstream({ kind: 'stdio', name: null, command: 'npx -y server-everything' }),
      'stdio: npx -y server-everything',
    )
  })
})
