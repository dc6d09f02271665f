// Which names may be custom domains, and the refusals for those that may not.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { checkCustomDomain } from '../../src/domains/custom-domain-name.js'

const ZONE = 'tunnels.example.com'

function refused(input: string): string {
  const r = checkCustomDomain(input, ZONE)
  assert.ok(!r.ok, `${input} should be refused`)
  return r.reason
}

describe('checkCustomDomain', () => {
  it('accepts ordinary names in canonical form, IDN included', () => {
    assert.deepEqual(checkCustomDomain(' MCP.Example.org. ', ZONE), {
      ok: true,
      domain: 'mcp.example.org',
      unicode: 'mcp.example.org',
    })
    const idn = checkCustomDomain('mcp.bücher.de', ZONE)
    assert.ok(idn.ok)
    assert.equal(idn.domain, 'mcp.xn--bcher-kva.de')
  })

  it('refuses what is not a domain name', () => {
    assert.match(refused(''), /enter a domain/)
    assert.match(refused('localhost'), /at least two labels/)
    assert.match(refused('https://mcp.example.org'), /without a scheme/)
    assert.match(refused('mcp.example.org:443'), /without a scheme, port/)
    assert.match(refused('192.0.2.1'), /IP address/)
    assert.match(refused('[2001:db8::1]'), /IP address|without a scheme/)
    assert.match(refused('-bad.example.org'), /not a valid DNS label/)
    assert.match(refused('a'.repeat(64) + '.org'), /not a valid DNS label/)
    assert.match(refused('mcp.example.123'), /numeric|not a valid domain name/)
  })

  it('refuses a name too long for its TXT record to be a DNS name, which never verified', () => {
    // `_burrow-challenge.<domain>` must fit DNS's 253 characters: for a longer domain the
    // resolver refused the lookup (EBADNAME), which read as the DNS not answering, for ever.
    const label = 'a'.repeat(60)
    const longest = `${label}.${label}.${label}.${'b'.repeat(48)}.org` // 235 characters
    assert.equal(longest.length, 235)
    assert.ok(checkCustomDomain(longest, ZONE).ok)
    assert.match(refused(`c${longest}`), /at most 235 characters/)
    assert.match(refused(`${label}.${label}.${label}.${label}.com`), /at most 235 characters/)
  })

  it('refuses wildcards, the service zone and the service host', () => {
    assert.match(refused('*.example.org'), /wildcard/)
    assert.match(refused('tunnels.example.com'), /service's own zone/)
    assert.match(refused('a--b.tunnels.example.com'), /service's own zone/)
    const own = checkCustomDomain('Burrow.Example', ZONE, 'burrow.example')
    assert.ok(!own.ok && /service's own host/.test(own.reason))
    assert.ok(checkCustomDomain('mcp.burrow.example', ZONE, 'burrow.example').ok)
  })

  it('refuses lookalike names: mixed scripts, or only letters that imitate Latin ones', () => {
    // "pаypal" with a Cyrillic а.
    assert.match(refused('p\u0430ypal.com'), /mixes Latin and Cyrillic/)
    // "аррӏе" written only in Cyrillic lookalikes, also as its punycode.
    const fake = 'аррӏе.com'
    assert.match(refused(fake), /imitate Latin/)
    const ascii = new URL(`http://${fake}`).hostname
    assert.match(refused(ascii), /imitate Latin/)
    // A real Cyrillic name is fine.
    assert.ok(checkCustomDomain('почта.рф', ZONE).ok)
  })
})
