/**
 * Tests of `publicUrlFor`: the URL printed by `burrowd tunnel create` and used by agents
 * (with `/mcp` appended), for laptop and production configurations.
 */

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../src/config.js'
import { publicUrlFor } from '../src/public-url.js'

describe('publicUrlFor', () => {
  it('gives the laptop URL with the listen port and no trailing slash', () => {
    assert.equal(publicUrlFor(loadConfig({}), 'docs', 'acme'), 'http://docs--acme.localhost:7100')
  })

  it('omits the port in production and when it is the default for the scheme', () => {
    const production = loadConfig({ BURROW_ZONE: 'tunnels.example.com' })
    assert.equal(publicUrlFor(production, 'docs', 'acme'), 'https://docs--acme.tunnels.example.com')
    const http80 = loadConfig({ BURROW_LISTEN: '0.0.0.0:80' })
    assert.equal(publicUrlFor(http80, 'docs', 'acme'), 'http://docs--acme.localhost')
    const behindProxy = loadConfig({ BURROW_ZONE: 'example.com', BURROW_PUBLIC_PORT: '8443' })
    assert.equal(publicUrlFor(behindProxy, 'a', 'b'), 'https://a--b.example.com:8443')
  })

  it('uses the bound port when the listen port is 0, and refuses to guess without it', () => {
    const config = loadConfig({ BURROW_LISTEN: '127.0.0.1:0' })
    assert.equal(publicUrlFor(config, 'docs', 'acme', 54321), 'http://docs--acme.localhost:54321')
    assert.throws(() => publicUrlFor(config, 'docs', 'acme'), ConfigError)
    const fixed = loadConfig({ BURROW_LISTEN: '127.0.0.1:7100' })
    assert.equal(publicUrlFor(fixed, 'docs', 'acme', 54321), 'http://docs--acme.localhost:7100')
  })
})
