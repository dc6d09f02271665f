/**
 * An agent's resource URI against the URI templates of an aggregate's servers: matching reads
 * the URI once, whatever the templates. With regular expressions, `x://{+a}/{+b}` became
 * `^x:\/\/.*\/.*$`, which backtracked over a URI of many `/` ending in a line break: one
 * `resources/read` of a 1 MiB URI held `burrow up`'s event loop for minutes, every agent's
 * calls waiting behind it (found by a hostile review).
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { matchesUriTemplate } from '../../src/aggregator/uri-template.js'
import { closeAllAggregators, connectAgent, startAggregator } from './aggregator-harness.js'

after(closeAllAggregators)

/** `x://a/a/…/a/` then a line break and `/`: no template below matches it. */
const HOSTILE = `x://${'a/'.repeat(512 * 1024)}\n/`

describe('hostile resource URIs', { timeout: 120_000 }, () => {
  it('are matched against templates of several runs in one reading', () => {
    assert.ok(!matchesUriTemplate('x://{+a}/{+b}/{+c}', HOSTILE))
    assert.ok(!matchesUriTemplate('x://{a}{?q}{+b}z', HOSTILE))
    assert.ok(matchesUriTemplate('x://{+a}/{+b}', `x://${'a/'.repeat(1000)}b`))
    assert.ok(matchesUriTemplate('x://{+a}/{+b}', HOSTILE.slice(0, -2)))
    assert.ok(matchesUriTemplate('x://{a}{b}', 'x://ab'))
    assert.ok(!matchesUriTemplate('x://{a}{b}', 'x://a/b'))
    assert.ok(matchesUriTemplate('x://{a}{+b}', 'x://a/b'))
    assert.ok(matchesUriTemplate('{a}', ''))
    assert.ok(!matchesUriTemplate('x', ''))
  })

  it('leave the aggregate serving other agents while one reads such a URI', async () => {
    const agg = await startAggregator([
      { name: 'a', stdio: ['--label', 'a', '--template', 'x://{+owner}/{+repo}'] },
      { name: 'b', stdio: ['--label', 'b'] },
    ])
    const hostile = await connectAgent(agg.url, 'hostile')
    const other = await connectAgent(agg.url, 'other')
    const read = hostile.client.readResource({ uri: HOSTILE }).then(
      () => 'read',
      (err: Error) => err.message,
    )
    const echoed = await other.client.callTool({ name: 'b__echo', arguments: { text: 'hi' } })
    assert.deepEqual(echoed.content, [{ type: 'text', text: 'b: hi' }])
    assert.match(await read, /Resource not found|not served by any upstream/)
  })
})
