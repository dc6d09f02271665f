// The client snippet's headers per access mode: what `burrow up`, the dashboard and the API show.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { accessHeaders, AGENT_TOKEN_PLACEHOLDER, clientSnippet } from '../src/client-snippet.js'

describe('client snippet', () => {
  it('a token tunnel: the agent-token header, with the placeholder unless given a token', () => {
    assert.deepEqual(accessHeaders('token'), { Authorization: `Bearer ${AGENT_TOKEN_PLACEHOLDER}` })
    assert.deepEqual(accessHeaders('token', 'atk_abc'), { Authorization: 'Bearer atk_abc' })
    assert.deepEqual(clientSnippet('https://x', 'docs', accessHeaders('token')), {
      mcpServers: {
        'docs-via-tunnel': { url: 'https://x/mcp', headers: { Authorization: 'Bearer atk_…' } },
      },
    })
  })

  it('oauth, public, unknown or no mode: the URL alone', () => {
    for (const mode of ['oauth', 'public', 'tokens', 'TOKEN', '', undefined]) {
      assert.equal(accessHeaders(mode), undefined, String(mode))
      assert.deepEqual(clientSnippet('https://x', null, accessHeaders(mode)), {
        mcpServers: { burrow: { url: 'https://x/mcp' } },
      })
    }
  })
})
