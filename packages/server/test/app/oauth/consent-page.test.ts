import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { consentPage } from '../../../src/app/oauth/consent-page.js'

const view = {
  viewer: { email: 'owner@example.com', slug: 'acme', csrfToken: 'csrf' },
  clientId: 'mcp_client_1',
  tunnelName: 'files',
  tunnelUrl: 'https://files--acme.example.test/mcp',
  redirectUri: 'http://127.0.0.1:3000/callback',
  params: [],
}

/** The consent sentence's client part. */
function clientPart(name: string): string {
  const page = String(consentPage({ ...view, clientName: name }))
  const match = /<strong id="consent-client">([\s\S]*?)<\/strong> wants/.exec(page)
  assert.ok(match, 'the consent sentence names the client')
  return match[1]!
}

describe('consentPage', () => {
  it('shows a plain client name as it is', () => {
    assert.equal(clientPart('Claude'), '<code class="name">Claude</code>')
  })

  it('marks the hidden characters of a client name, which showed as nothing', () => {
    for (const hidden of ['\u200b', '\u2060\u2061', 'Claude\u200d', '\u00ad']) {
      const part = clientPart(hidden)
      assert.match(part, /<mark class="np"/, JSON.stringify(hidden))
    }
  })

  it('flags a client name that mixes scripts to pass for another', () => {
    assert.match(
      clientPart('\u0421laude'),
      /data-mixed-scripts="Cyrillic Latin|data-mixed-scripts="Latin Cyrillic/,
    )
  })

  it('escapes markup in a client name', () => {
    assert.doesNotMatch(clientPart('<img src=x onerror=alert(1)>'), /<img/)
  })
})
