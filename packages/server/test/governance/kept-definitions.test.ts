/**
 * What rug-pull pins keep of a definition is masked by the tunnel's redaction, including a
 * definition too large to keep whole: masked from its fields, then cut (it was cut, then masked
 * as text, where keys never applied and a token after an escaped line break was not found).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { KeptDefinitions } from '../../src/governance/kept-definitions.js'
import { Redactor } from '../../src/governance/redactor.js'
import { MAX_DEFINITION_CHARS, pinTool } from '../../src/governance/tool-definition.js'

const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`
const redactor = new Redactor({
  keys: ['password'],
  patterns: [],
  detectSecrets: true,
  forwarded: false,
})

/** A tool whose description and schema hold secrets, padded to `padding` characters. */
function tool(padding: number) {
  return {
    name: 'deploy',
    description: `Deploys the site.\nCI token:\n${TOKEN}\n`,
    inputSchema: {
      type: 'object',
      // Canonical JSON sorts keys: the padding comes after the secrets, where the cut falls.
      properties: { target: { type: 'string' }, zz: { description: '.'.repeat(padding) } },
      default: { password: 'hunter2-db-password-9c1f' },
    },
  }
}

describe('KeptDefinitions', () => {
  for (const [label, padding] of [
    ['kept whole', 1000],
    ['cut at its limit', 300 * 1024],
  ] as const) {
    it(`masks the secrets of a definition ${label}`, () => {
      const p = pinTool(tool(padding))
      assert.ok(p)
      assert.equal(p.cut, padding > MAX_DEFINITION_CHARS)
      const kept = new KeptDefinitions().of({ definitionChars: 0 }, p, {
        zeroKnowledge: false,
        redactor,
      })
      const text = kept.definition ?? ''
      assert.ok(text.length > 1000 && text.length <= MAX_DEFINITION_CHARS, String(text.length))
      assert.ok(!text.includes(TOKEN), 'the token is masked')
      assert.ok(text.includes('[REDACTED:github_token]'))
      assert.match(text, /"password":"\[REDACTED:password\]"/)
      assert.ok(!text.includes('hunter2'))
      assert.equal(kept.hash, p.hash, 'the hash is of the definition as sent')
    })
  }

  it('keeps nothing in zero-knowledge mode', () => {
    const p = pinTool(tool(300 * 1024))
    assert.ok(p)
    const kept = new KeptDefinitions().of({ definitionChars: 0 }, p, {
      zeroKnowledge: true,
      redactor,
    })
    assert.equal(kept.definition, null)
  })
})
