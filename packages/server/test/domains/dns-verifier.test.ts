// DNS verification against a real DNS server on loopback: the TXT token, CNAME or A/AAAA.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startDnsServer, type DnsServer } from '../../../../test/helpers/dns-server.js'
import { DnsVerifier } from '../../src/domains/dns-verifier.js'

describe('DnsVerifier', () => {
  let dns: DnsServer
  let verifier: DnsVerifier
  const target = { hosts: ['files--acme.tunnels.example.com', 'tunnels.example.com'] }

  before(async () => {
    dns = await startDnsServer()
    verifier = new DnsVerifier({ servers: [dns.address], timeoutMs: 1000 })
    dns.records.set('tunnels.example.com', [{ type: 'A', address: '203.0.113.10' }])
  })

  after(async () => {
    await dns.close()
  })

  it('says what is missing before the records exist', async () => {
    const f = await verifier.verify('mcp.example.org', 'tok-1', target)
    assert.equal(f.txtOk, false)
    assert.equal(f.targetOk, false)
    // NXDOMAIN is the DNS's answer: the records are missing, not unknown.
    assert.equal(f.unanswered, false)
    assert.match(f.problems[0]!, /no TXT record at _burrow-challenge\.mcp\.example\.org .*tok-1/)
    assert.match(f.problems[1]!, /CNAME to files--acme\.tunnels\.example\.com/)
  })

  it('verifies a TXT token and a CNAME to the tunnel host', async () => {
    dns.records.set('_burrow-challenge.mcp.example.org', [{ type: 'TXT', data: 'tok-1' }])
    dns.records.set('mcp.example.org', [
      { type: 'CNAME', domain: 'files--acme.tunnels.example.com' },
    ])
    assert.deepEqual(await verifier.verify('mcp.example.org', 'tok-1', target), {
      txtOk: true,
      targetOk: true,
      problems: [],
      unanswered: false,
    })
    // The wrong token is not enough.
    const wrong = await verifier.verify('mcp.example.org', 'tok-2', target)
    assert.equal(wrong.txtOk, false)
    assert.match(wrong.problems[0]!, /does not hold the token tok-2/)
  })

  it('accepts A records that are the service host’s addresses, and nothing else', async () => {
    dns.records.set('_burrow-challenge.apex.example.net', [{ type: 'TXT', data: 'tok-3' }])
    dns.records.set('apex.example.net', [{ type: 'A', address: '203.0.113.10' }])
    assert.equal((await verifier.verify('apex.example.net', 'tok-3', target)).targetOk, true)
    dns.records.set('apex.example.net', [{ type: 'A', address: '198.51.100.7' }])
    assert.equal((await verifier.verify('apex.example.net', 'tok-3', target)).targetOk, false)
  })
})
