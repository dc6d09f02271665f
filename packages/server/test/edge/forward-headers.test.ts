// Which headers cross the edge: cookies stay on the tunnel's host and each stays its own field,
// every answer carries the sandbox CSP, hop-by-hop headers stay behind.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  agentResponseHeaders,
  hostOnlyCookie,
  SANDBOX_CSP,
  upstreamRequestHeaders,
  utf8ContentType,
} from '../../src/edge/forward-headers.js'

function pairs(flat: string[]): [string, string][] {
  const out: [string, string][] = []
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!])
  return out
}

describe('agentResponseHeaders', () => {
  it('drops Domain from every Set-Cookie and keeps each one a field of its own', () => {
    const out = pairs(
      agentResponseHeaders([
        ['set-cookie', 'burrow_session=evil; Domain=localhost; Path=/; HttpOnly'],
        ['Set-Cookie', 'b=2; domain=.example.com'],
        ['set-cookie', 'c=3; Path=/; Secure'],
      ]),
    )
    const cookies = out.filter(([n]) => n === 'set-cookie').map(([, v]) => v)
    assert.deepEqual(cookies, [
      'burrow_session=evil; Path=/; HttpOnly',
      'b=2',
      'c=3; Path=/; Secure',
    ])
  })

  it('sends the sandbox CSP and nosniff, replacing whatever the upstream said', () => {
    const out = pairs(
      agentResponseHeaders([
        ['content-type', 'text/html'],
        ['content-security-policy', "script-src 'unsafe-inline'"],
        ['x-content-type-options', 'sniff'],
      ]),
    )
    assert.deepEqual(
      out.filter(([n]) => n === 'content-security-policy'),
      [['content-security-policy', SANDBOX_CSP]],
    )
    assert.deepEqual(
      out.filter(([n]) => n === 'x-content-type-options'),
      [['x-content-type-options', 'nosniff']],
    )
  })

  it('drops hop-by-hop headers and the ones Connection names', () => {
    const out = pairs(
      agentResponseHeaders([
        ['connection', 'x-secret'],
        ['x-secret', '1'],
        ['transfer-encoding', 'chunked'],
        ['content-type', 'text/event-stream'],
      ]),
    )
    const names = out.map(([n]) => n)
    assert.ok(!names.includes('x-secret'))
    assert.ok(!names.includes('transfer-encoding'))
    assert.ok(names.includes('x-accel-buffering'))
  })

  it("drops what would instruct the proxy in front or clear the zone's cookies", () => {
    const out = pairs(
      agentResponseHeaders([
        ['Clear-Site-Data', '"cookies"'],
        ['X-Accel-Redirect', '/metrics'],
        ['x-accel-limit-rate', '1'],
        ['x-accel-expires', '0'],
        ['x-accel-charset', 'utf-8'],
        ['x-accel-buffering', 'no'],
        ['x-kept', '1'],
        ['Burrow-Foreign-Session', '1'],
      ]),
    )
    assert.deepEqual(
      out
        .map(([n]) => n)
        .filter((n) => n.startsWith('x-') || n === 'clear-site-data' || n.startsWith('burrow')),
      ['x-accel-buffering', 'x-kept', 'x-content-type-options'],
    )
  })
})

describe('utf8ContentType', () => {
  it('says UTF-8 for text and for a type that named a charset, and leaves JSON alone', () => {
    assert.equal(utf8ContentType('text/event-stream'), 'text/event-stream; charset=utf-8')
    assert.equal(
      utf8ContentType('text/event-stream; charset=iso-8859-1'),
      'text/event-stream; charset=utf-8',
    )
    assert.equal(
      utf8ContentType('Text/HTML;Charset="latin1"; x=1'),
      'Text/HTML; x=1; charset=utf-8',
    )
    assert.equal(utf8ContentType('application/json'), 'application/json')
    assert.equal(
      utf8ContentType('application/json; charset=windows-1252'),
      'application/json; charset=utf-8',
    )
  })
})

describe('upstreamRequestHeaders', () => {
  it('drops what every Connection header names, whatever its case, and adds X-Forwarded-*', () => {
    const out = upstreamRequestHeaders(
      [
        'Host',
        'abc--acme.burrow.test',
        'CONNECTION',
        'keep-alive, X-Private',
        'x-private',
        'secret',
        'Connection',
        ' x-other ,',
        'X-Other',
        '1',
        'Authorization',
        'Bearer agent',
        'Content-Type',
        'application/json',
        'Connectionx',
        'kept',
      ],
      { clientIp: '203.0.113.7', proto: 'https', host: 'abc--acme.burrow.test' },
    )
    assert.deepEqual(out, [
      ['authorization', 'Bearer agent'],
      ['content-type', 'application/json'],
      ['connectionx', 'kept'],
      ['accept-encoding', 'identity'],
      ['x-forwarded-for', '203.0.113.7'],
      ['x-forwarded-proto', 'https'],
      ['x-forwarded-host', 'abc--acme.burrow.test'],
    ])
  })
})

describe('upstreamRequestHeaders and Expect', () => {
  it('does not forward Expect: the edge met it and forwards the body whole', () => {
    const out = upstreamRequestHeaders(
      ['Expect', '100-continue', 'Content-Type', 'application/json'],
      { clientIp: '203.0.113.7', proto: 'https', host: 'abc--acme.burrow.test' },
    )
    assert.equal(
      out.find(([name]) => name === 'expect'),
      undefined,
    )
  })
})

describe('hostOnlyCookie', () => {
  it('leaves cookies without Domain untouched', () => {
    assert.equal(hostOnlyCookie('a=1; Path=/'), 'a=1; Path=/')
    // A value that merely contains the word is not an attribute.
    assert.equal(hostOnlyCookie('a=domain=x; Path=/'), 'a=domain=x; Path=/')
  })
})

describe('upstreamRequestHeaders', () => {
  it('replaces Host, Origin, forwarding headers and Accept-Encoding', () => {
    const out = upstreamRequestHeaders(
      [
        'Host',
        'a--b.localhost',
        'Origin',
        'https://evil',
        'X-Forwarded-For',
        '1.2.3.4',
        'Accept',
        '*/*',
        'Accept-Encoding',
        'gzip, deflate, br',
      ],
      { clientIp: '9.9.9.9', proto: 'https', host: 'a--b.localhost' },
    )
    // Answers are asked for uncompressed: the edge reads them.
    assert.deepEqual(out, [
      ['accept', '*/*'],
      ['accept-encoding', 'identity'],
      ['x-forwarded-for', '9.9.9.9'],
      ['x-forwarded-proto', 'https'],
      ['x-forwarded-host', 'a--b.localhost'],
    ])
  })
})

describe('upstreamRequestHeaders and credentials', () => {
  const raw = ['Authorization', 'Bearer atk_secret', 'Accept', 'application/json']
  const forwarded = { clientIp: '203.0.113.9', proto: 'https', host: 'docs--acme.example' }

  it('drops Authorization when it held the credential for Burrow', () => {
    const out = upstreamRequestHeaders(raw, { ...forwarded, dropCredentials: true })
    assert.equal(
      out.some(([n]) => n === 'authorization'),
      false,
    )
    assert.ok(out.some(([n, v]) => n === 'accept' && v === 'application/json'))
  })

  it('forwards Authorization on public tunnels, where it is for the local server', () => {
    const out = upstreamRequestHeaders(raw, forwarded)
    assert.ok(out.some(([n, v]) => n === 'authorization' && v === 'Bearer atk_secret'))
  })

  it("sends the admitted agent as Burrow-Agent, never the agent's own", () => {
    const spoofed = [
      ...raw,
      'Burrow-Agent',
      'grant_someone_else',
      'burrow-agent',
      'x',
      'Burrow_Agent',
      'grant_cgi_style',
    ]
    const admitted = upstreamRequestHeaders(spoofed, { ...forwarded, agent: 'grant_abc' })
    assert.deepEqual(
      admitted.filter(([n]) => n.replace(/_/g, '-') === 'burrow-agent'),
      [['burrow-agent', 'grant_abc']],
    )
    const anonymous = upstreamRequestHeaders(spoofed, { ...forwarded, agent: null })
    assert.equal(
      anonymous.some(([n]) => n === 'burrow-agent'),
      false,
    )
  })

  it('drops what CGI-style servers read as a header the edge sets or drops (X_Real_IP)', () => {
    const spoofed = [
      'X_Real_IP',
      '127.0.0.1',
      'x_forwarded_for',
      '127.0.0.1',
      'X_Forwarded_Host',
      'localhost',
      'Proxy_Connection',
      'x',
      'My_Header',
      'kept',
    ]
    const out = upstreamRequestHeaders(spoofed, forwarded)
    assert.deepEqual(
      out.filter(([n]) => n.includes('_')),
      [['my_header', 'kept']],
    )
  })

  it('drops what CGI-style servers read as an MCP header (Mcp_Session_Id, Mcp_Name)', () => {
    // burrow up checks that a session is the agent's own under Mcp-Session-Id, and the tunnel's
    // policy judges the tool a 2026-07-28 request names in its body and Mcp-Name: an alias the
    // server reads as the same header would bypass both (found by a review).
    const spoofed = [
      'Mcp-Session-Id',
      'mine',
      'Mcp_Session_Id',
      'theirs',
      'mcp_name',
      'denied_tool',
      'MCP_METHOD',
      'tools/call',
      'Mcp_Protocol_Version',
      '2025-03-26',
      'Mcp_Param_Region',
      'x',
      'last_event_id',
      '9',
      'Mcp-Name',
      'allowed_tool',
      'x_mcp_name',
      'kept',
      'Mcp-Param-tenant_id',
      'acme',
      'mcp-param_Zone',
      'z',
    ]
    const out = upstreamRequestHeaders(spoofed, forwarded)
    assert.deepEqual(
      out.filter(([n]) => n.includes('mcp') || n.includes('event')),
      [
        ['mcp-session-id', 'mine'],
        ['mcp-name', 'allowed_tool'],
        ['x_mcp_name', 'kept'],
        // A parameter named with `_` (a tool's `x-mcp-header: tenant_id`) is the client's own.
        ['mcp-param-tenant_id', 'acme'],
      ],
    )
  })
})
