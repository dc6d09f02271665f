// The client snippet `up` prints and the telemetry banner.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  announcement,
  clientSnippet,
  snippetEntryName,
  telemetryBanner,
} from '../../src/up/snippet.js'

describe('snippet', () => {
  it('names the entry burrow, or <NAME>-via-tunnel with unsafe characters replaced', () => {
    assert.equal(snippetEntryName(null), 'burrow')
    assert.equal(snippetEntryName('files'), 'files-via-tunnel')
    assert.equal(snippetEntryName('My Files/v2!'), 'My-Files-v2--via-tunnel')
  })
  it('points at <public_url>/mcp', () => {
    assert.deepEqual(clientSnippet('https://a--b.example.com', null), {
      mcpServers: { burrow: { url: 'https://a--b.example.com/mcp' } },
    })
  })
  it('prints URL, upstream, the snippet and the editor variant wrapped in "mcp": {"servers": …}', () => {
    const text = announcement(
      { publicUrl: 'http://a--b.localhost:7100', tunnelId: 'tun_1' },
      'stdio: node s.js',
      'x',
    )
    assert.match(text, /Tunnel online: +http:\/\/a--b\.localhost:7100\/mcp/)
    assert.match(text, /Forwarding to: +stdio: node s\.js/)
    const blocks = text.split('\n\n')
    assert.ok(blocks.some((b) => b.includes('"mcpServers"') && b.includes('"x-via-tunnel"')))
    const editor = text.slice(text.indexOf('"mcp": '))
    assert.deepEqual(JSON.parse(`{${editor.trim()}}`), {
      mcp: { servers: { 'x-via-tunnel': { url: 'http://a--b.localhost:7100/mcp' } } },
    })
  })
  it('banner says whether crash reports are on, with the opt-out hint', () => {
    assert.match(telemetryBanner(true), /enabled.*--no-telemetry.*BURROW_NO_TELEMETRY=1/)
    assert.match(telemetryBanner(false), /disabled/)
  })
})
