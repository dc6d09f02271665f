// Text that is not JSON-RPC, redacted for forwarded redaction: JSON read as values (escaped
// secrets found, configured keys applied), anything else as text.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { redactedText } from '../../src/governance/redacted-text.js'
import { Redactor } from '../../src/governance/redactor.js'

const redactor = () =>
  new Redactor({
    keys: ['password'],
    patterns: ['internal-[0-9]{4}'],
    detectSecrets: false,
    forwarded: true,
  })

describe('redactedText', () => {
  it('masks a secret in plain text, and says null when there is none', () => {
    const out = redactedText(redactor(), 'failed for internal-1234, sorry')
    assert.ok(out !== null && !out.includes('internal-1234'), String(out))
    assert.equal(redactedText(redactor(), 'nothing to see here'), null)
  })

  it('reads text in UTF-16 or UTF-32 named as no charset without its NULs (found by a review)', () => {
    for (const encoding of ['utf16le', 'utf16be', 'utf32le'] as const) {
      const bytes =
        encoding === 'utf32le'
          ? Buffer.from([...'failed: internal-1234'].flatMap((c) => [c.charCodeAt(0), 0, 0, 0]))
          : encoding === 'utf16be'
            ? Buffer.from('failed: internal-1234', 'utf16le').swap16()
            : Buffer.from('failed: internal-1234', 'utf16le')
      const out = redactedText(redactor(), new TextDecoder().decode(bytes))
      assert.ok(out !== null, encoding)
      assert.ok(!out.includes('\0'), encoding)
      assert.ok(!out.includes('internal-1234'), `${encoding}: ${out}`)
    }
    // NULs with nothing to mask: the text goes without them, as read.
    assert.equal(redactedText(redactor(), 'o\0k\0'), 'ok')
  })

  it('reads JSON first: a secret written with escapes is found', () => {
    const escaped = JSON.stringify('internal-1234').replace('i', '\\u0069')
    assert.ok(escaped.includes('\\u0069'))
    const out = redactedText(redactor(), escaped)
    assert.ok(out !== null && !out.includes('internal-1234'), String(out))
    assert.equal(typeof JSON.parse(out), 'string', 'it stays JSON')
  })

  it('reads JSON as Python reads it (NaN), and masks whole text that hides a secret behind escapes', () => {
    // An event of a Python server: `json.dumps` writes NaN, which Python agents read.
    const lenient =
      '{"jsonrpc":"2.0","id":1,"result":{"score":NaN,"password":"hunter2-db",' +
      '"text":"ticket \\u0069nternal-1234"}}'
    const out = redactedText(redactor(), lenient)
    assert.ok(out !== null, 'something was masked')
    assert.ok(!out.includes('hunter2-db'), out)
    assert.ok(!out.includes('nternal-1234'), out)
    // Not JSON at all, with a secret written with an escape.
    assert.equal(
      redactedText(redactor(), 'ticket \\u0069nternal-1234 failed'),
      '[REDACTED:escaped]',
    )
    assert.equal(redactedText(redactor(), 'a \\u0041 b'), null, 'escapes with nothing behind them')
    // A plain secret beside the escaped one.
    assert.equal(
      redactedText(redactor(), 'internal-5678 and \\u0069nternal-1234'),
      '[REDACTED:escaped]',
    )
  })

  it('takes hostile text: JSON nested past the stack, or not JSON at all, is read as text', () => {
    const deep = `${'['.repeat(200_000)}"internal-1234"${']'.repeat(200_000)}`
    const out = redactedText(redactor(), deep)
    assert.ok(out !== null && !out.includes('internal-1234'))
    assert.equal(redactedText(redactor(), '{"unclosed": "internal-12'), null)
  })
})
