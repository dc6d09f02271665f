import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { shownUrl } from '../src/shown-url.js'

describe('shownUrl', () => {
  it('leaves out credentials, and writes a query or fragment as ?…', () => {
    const shown = (url: string) => shownUrl(new URL(url))
    assert.equal(shown('http://127.0.0.1:3000/mcp'), 'http://127.0.0.1:3000/mcp')
    assert.equal(shown('http://ann:pa55@127.0.0.1:3000/mcp'), 'http://127.0.0.1:3000/mcp')
    assert.equal(shown('https://mcp.example/mcp?api_key=s3cret'), 'https://mcp.example/mcp?…')
    assert.equal(shown('http://[::1]:3000/x#token=s3cret'), 'http://[::1]:3000/x?…')
    assert.equal(shown('http://127.0.0.1/mcp?'), 'http://127.0.0.1/mcp?…')
  })
})
