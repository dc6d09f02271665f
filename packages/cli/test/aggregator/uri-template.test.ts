/** RFC 6570 matching of resource URIs to the templates upstreams list. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { matchesUriTemplate } from '../../src/aggregator/uri-template.js'

describe('URI templates', () => {
  it('match level-1 expressions within one segment', () => {
    assert.ok(matchesUriTemplate('mem://a/items/{id}', 'mem://a/items/7'))
    assert.ok(matchesUriTemplate('mem://a/items/{id}', 'mem://a/items/a%2Fb'))
    assert.ok(matchesUriTemplate('db://{schema}/{table}', 'db://public/users'))
    assert.ok(!matchesUriTemplate('mem://a/items/{id}', 'mem://a/items/7/8'))
    assert.ok(!matchesUriTemplate('mem://a/items/{id}', 'mem://b/items/7'))
    assert.ok(!matchesUriTemplate('mem://a/items/{id}', 'mem://a/items/7?x=1'))
  })

  it('treat the template literally, regular expression characters included', () => {
    assert.ok(matchesUriTemplate('x://a.b/(c)/{id}', 'x://a.b/(c)/1'))
    assert.ok(!matchesUriTemplate('x://a.b/{id}', 'x://aXb/1'))
  })

  it('match operator expressions (levels 2-4) leniently', () => {
    assert.ok(matchesUriTemplate('file:///{+path}', 'file:///home/me/notes.md'))
    assert.ok(matchesUriTemplate('search://q{?term,limit}', 'search://q?term=x&limit=3'))
  })

  it('match adjacent expressions of both kinds as the regular expressions did', () => {
    // `{a}` spans line ends but not `/`; `{+b}` spans `/` but not line ends: together, both.
    // Before, the two were read as `{+b}` alone, and these URIs matched nothing.
    assert.ok(matchesUriTemplate('x://{a}{+b}', 'x://a\nb/c'))
    assert.ok(matchesUriTemplate('x://{+a}{b}', 'x://a/b\n'))
    assert.ok(matchesUriTemplate('x{a}{+b}{c}y', 'x\n/\ny'))
    assert.ok(matchesUriTemplate('x://{a}{#b}', 'x://\u2028#b'))
    assert.ok(!matchesUriTemplate('x://{a}{+b}', 'x://a/\n'))
    assert.ok(!matchesUriTemplate('x://{+a}{b}', 'x://\n/'))
  })
})
