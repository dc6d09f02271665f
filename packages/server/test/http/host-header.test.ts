import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { hostHeaderProblem } from '../../src/http/host-header.js'

const problem = (rawHeaders: string[]) => hostHeaderProblem(rawHeaders)?.message ?? null

describe('hostHeaderProblem', () => {
  it('finds Host named twice, in any case, and nothing else', () => {
    assert.equal(problem(['Host', 'a', 'Accept', '*/*']), null)
    assert.equal(problem([]), null)
    assert.equal(problem(['Host', 'a', 'hOST', 'b']), 'Host header repeated')
    assert.equal(problem(['host', 'a', 'X-Host', 'b', 'Hosts', 'c']), null)
    assert.equal(problem(['a', 'Host', 'Host', 'b']), null, 'a value is not a name')
  })

  it('takes a host name or address with an optional port, and nothing else', () => {
    for (const good of [
      'mcp--acme.burrow.example',
      'MCP--Acme.Burrow.Example.',
      'mcp--acme.localhost:7100',
      '127.0.0.1:80',
      '[::1]:8080',
      '[::1]',
      'localhost:',
      'xn--bcher-kva.example:65535',
      '',
    ]) {
      assert.equal(problem(['Host', good]), null, good)
    }
    for (const bad of [
      'evil--mallory.zone.example:x@mcp.example.test',
      'a--b.zone.example:99999',
      'a--b.zone.example:80:80',
      'a b.example',
      'a/b.example',
      'user@a.example',
      'a.example\\b',
      '[::1',
      'a.example:+80',
    ]) {
      assert.equal(problem(['Host', bad]), 'Host header malformed', bad)
    }
  })
})
