// Text from configuration files printed on a terminal: escapes written out, the rest as is.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { printable } from '../src/printable.js'

describe('printable', () => {
  it('writes control characters and direction marks as escapes', () => {
    assert.equal(printable('a\x1b[2Kb'), 'a\\x1b[2Kb')
    assert.equal(printable('line\nnext\r\t'), 'line\\x0anext\\x0d\\x09')
    assert.equal(printable('\x7f\x9b\x00'), '\\x7f\\x9b\\x00')
    assert.equal(printable('abc\u202edef\u2066'), 'abc\\u202edef\\u2066')
    assert.equal(printable('np\u200bx\ufeff\u2028'), 'np\\u200bx\\ufeff\\u2028')
    assert.equal(printable('server.js\u00ad'), 'server.js\\xad')
    assert.equal(printable('a\u3164b\ufe0fc'), 'a\\u3164b\\ufe0fc')
    assert.equal(printable('x\u{e0041}y'), 'x\\u{e0041}y')
  })
  it('leaves printable text alone, non-Latin letters and emoji included', () => {
    const text = "npx -y 'my server' café 東京 🦫 ~/x/.mcp.json"
    assert.equal(printable(text), text)
  })
})
