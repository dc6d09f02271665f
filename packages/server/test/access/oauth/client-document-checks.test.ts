/** The checks of a Client ID Metadata Document's URL and media type beyond its JSON. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  hasDotSegment,
  isJsonType,
  mediaTypeOf,
} from '../../../src/access/oauth/client-document-checks.js'

describe('client document checks', () => {
  it('finds dot segments as written, percent-encoded or behind a backslash', () => {
    for (const url of [
      'https://a.example/x/../client.json',
      'https://a.example/./client.json',
      'https://a.example/x/%2E%2e/client.json',
      'https://a.example/x/.%2e/client.json',
      'https://a.example\\org\\..\\client.json',
      'https://a.example/x/..',
    ]) {
      assert.equal(hasDotSegment(url), true, url)
    }
    for (const url of [
      'https://a.example/client.json',
      'https://a.example/.well-known/client.json',
      'https://a.example/x...y/client.json',
      'https://a.example/client.json?next=../x',
      'https://a.example/client.json#..',
    ]) {
      assert.equal(hasDotSegment(url), false, url)
    }
  })

  it('reads one media type, and says when it was sent twice with different types', () => {
    assert.equal(mediaTypeOf('Application/JSON; charset=utf-8'), 'application/json')
    assert.equal(mediaTypeOf(undefined), '')
    assert.equal(mediaTypeOf(['application/json', 'application/json']), 'application/json')
    assert.equal(mediaTypeOf(['application/json', 'text/plain']), 'several types')
    assert.equal(isJsonType('application/json'), true)
    assert.equal(isJsonType('application/oauth-client+json'), true)
    assert.equal(isJsonType('text/plain'), false)
    assert.equal(isJsonType('application/json5'), false)
    assert.equal(isJsonType('several types'), false)
  })
})
