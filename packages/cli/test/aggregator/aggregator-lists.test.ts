/**
 * The aggregator's list cache and bookkeeping, observed from outside: cached `*\/list` pages
 * (hits counted, the upstream not asked again) until the upstream sends `list_changed`, which
 * reaches agents; names too long for agents warned about at start; the bounded id table evicting
 * its oldest request; and the calls a metrics listener receives.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import {
  allTools,
  closeAllAggregators,
  connectAgent,
  startAggregator,
  textOf,
  until,
} from './aggregator-harness.js'

after(closeAllAggregators)

/** How many tools/list requests the fixture behind `upstream` has served. */
async function listsServed(
  client: Awaited<ReturnType<typeof connectAgent>>['client'],
  upstream: string,
) {
  const counts = JSON.parse(textOf(await client.callTool({ name: `${upstream}__counts` }))) as {
    toolsList: number
  }
  return counts.toolsList
}

describe('aggregator lists', { timeout: 60_000 }, () => {
  it('serves repeated lists from the cache until the upstream says they changed', async () => {
    const agg = await startAggregator([
      { name: 'a', stdio: ['--label', 'a', '--tools', '8', '--page', '4'] },
      { name: 'b', stdio: ['--label', 'b'] },
    ])
    const agent = await connectAgent(agg.url)
    const first = await allTools(agent.client)
    const served = await listsServed(agent.client, 'a')
    const hits = agg.metrics.count('listCacheHit a,tools/list')
    const second = await allTools(agent.client)
    assert.deepEqual(second, first)
    assert.equal(await listsServed(agent.client, 'a'), served, 'a was not asked again')
    // a has 19 tools in pages of 4: five pages, all from the cache.
    assert.equal(agg.metrics.count('listCacheHit a,tools/list') - hits, 5)

    const added = textOf(await agent.client.callTool({ name: 'a__add-tool' }))
    assert.equal(added, 'added-1')
    await until(() => agent.listChanged >= 1)
    const third = await allTools(agent.client)
    assert.ok(third.names.includes('a__added-1'), third.names.join(', '))
    assert.ok((await listsServed(agent.client, 'a')) > served, 'a was asked again')
    await agg.close()
  })

  it("keeps no page under an agent's own cursor, only under those the upstream issued", async () => {
    const agg = await startAggregator([
      { name: 'a', stdio: ['--label', 'a', '--tools', '8', '--page', '4'] },
      { name: 'b', stdio: ['--label', 'b'] },
    ])
    const agent = await connectAgent(agg.url)
    await allTools(agent.client)
    // The fixture reads cursors as numbers: 64 KiB of spaces and "4" is its cursor "4". The
    // aggregator's cursors are base64url JSON anyone can write.
    const own = ' '.repeat(64 * 1024) + '4'
    const cursor = Buffer.from(JSON.stringify({ v: 2, m: 'tools/list', p: [['a', own]] }))
    const served = await listsServed(agent.client, 'a')
    const hits = agg.metrics.count('listCacheHit a,tools/list')
    for (let n = 0; n < 2; n++) {
      const page = await agent.client.listTools({ cursor: cursor.toString('base64url') })
      assert.equal(page.tools[0]?.name, 'a__slow')
    }
    assert.equal(agg.metrics.count('listCacheHit a,tools/list'), hits, 'nothing from the cache')
    assert.equal(await listsServed(agent.client, 'a'), served + 2, 'a was asked each time')
    await agg.close()
  })

  it('leaves out of a page an upstream that does not answer its list in time', async () => {
    const agg = await startAggregator(
      [
        { name: 'stuck', stdio: ['--label', 'stuck', '--hang-lists'] },
        { name: 'good', stdio: ['--label', 'good'] },
      ],
      { listTimeoutMs: 300 },
    )
    const agent = await connectAgent(agg.url)
    const { names } = await allTools(agent.client)
    assert.ok(names.includes('good__echo'), names.join(', '))
    assert.ok(!names.some((n) => n.startsWith('stuck__')), names.join(', '))
    await agg.logger.waitFor(
      /tools\/list of upstream "stuck" failed \(.*did not answer.*\); left out/,
    )
    await agg.close()
  })

  it('reads a resource of one upstream while another never lists its templates', async () => {
    const agg = await startAggregator(
      [
        { name: 'stuck', stdio: ['--label', 'stuck', '--hang-templates'] },
        { name: 'good', stdio: ['--label', 'good'] },
      ],
      { listTimeoutMs: 300 },
    )
    const agent = await connectAgent(agg.url)
    const uri = 'mem://good/items/7'
    // The stuck upstream costs one list timeout, far less than the agent waits (no timing is
    // asserted: before, the read waited until the agent gave up).
    const result = await agent.client.readResource({ uri }, { timeout: 20_000 })
    assert.deepEqual(result.contents, [{ uri, mimeType: 'text/plain', text: 'item 7 of good' }])
    await agg.close()
  })

  it('reads a resource of an earlier upstream without waiting for a later one that never lists its templates', async () => {
    // The list timeout is longer than the agent waits: the read must not depend on it.
    const agg = await startAggregator(
      [
        { name: 'good', stdio: ['--label', 'good'] },
        { name: 'stuck', stdio: ['--label', 'stuck', '--hang-templates'] },
      ],
      { listTimeoutMs: 600_000 },
    )
    const agent = await connectAgent(agg.url)
    const uri = 'mem://good/items/7'
    for (let n = 0; n < 2; n++) {
      const result = await agent.client.readResource({ uri }, { timeout: 20_000 })
      assert.deepEqual(result.contents, [{ uri, mimeType: 'text/plain', text: 'item 7 of good' }])
    }
    await agg.close()
  })

  it('warns at start about names longer than 64 characters once prefixed', async () => {
    const agg = await startAggregator([
      { name: 'verbose-upstream', stdio: ['--label', 'v', '--long'] },
      { name: 'b', stdio: ['--label', 'b'] },
    ])
    const long = `verbose-upstream__${'l'.repeat(60)}`
    const line = await agg.logger.waitFor(/characters long/, 20_000)
    assert.match(line, /^WARN/)
    assert.ok(line.includes(`"${long}" is 78 characters long`), line)
    assert.match(line, /shorten the upstream name "verbose-upstream"/)
    const agent = await connectAgent(agg.url)
    assert.ok((await allTools(agent.client)).names.includes(long))
    assert.equal(agg.logger.lines.filter((l) => l.includes('characters long')).length, 1)
    await agg.close()
  })

  it('evicts the oldest request when the id table is full, answering it with an error', async () => {
    const agg = await startAggregator(
      [
        { name: 'a', stdio: ['--label', 'a'] },
        { name: 'b', stdio: ['--label', 'b'] },
      ],
      { pendingLimit: 2 },
    )
    const agent = await connectAgent(agg.url)
    // The aggregator reads each upstream's tools and prompts at start; once the agent's lists
    // come from the cache, those reads are over and only the agent's calls fill a's table.
    await until(async () => {
      await agent.client.listTools()
      await agent.client.listPrompts()
      return (
        agg.metrics.count('listCacheHit a,tools/list') > 0 &&
        agg.metrics.count('listCacheHit a,prompts/list') > 0
      )
    })
    const slow = (ms: number) =>
      agent.client.callTool({ name: 'a__slow', arguments: { ms } }).then(textOf)
    const oldest = slow(1_500)
    await until(() => agg.metrics.count('request a,tools/call') === 1)
    const others = [slow(300), slow(300)]
    await assert.rejects(oldest, /request dropped: upstream "a" had more than 2 requests/)
    assert.deepEqual(await Promise.all(others), ['slept 300 ms', 'slept 300 ms'])
    // A background list refresh under load may take (and lose) a slot too; each one counts.
    assert.ok(agg.metrics.count('idEviction') >= 1)
    await agg.logger.waitFor(/\[a\] cancelled/)
    await agg.close()
  })

  it('reports requests, bytes and fan-outs to the metrics listener', async () => {
    const agg = await startAggregator([
      { name: 'a', stdio: ['--label', 'a'] },
      { name: 'b', stdio: ['--label', 'b'] },
    ])
    const agent = await connectAgent(agg.url)
    await agent.client.callTool({ name: 'b__echo', arguments: { text: 'x' } })
    await agent.client.setLoggingLevel('info')
    assert.equal(agg.metrics.count('fanout logging/setLevel'), 1)
    assert.equal(agg.metrics.count('request b,tools/call'), 1)
    assert.equal(agg.metrics.count('request a,tools/call'), 0)
    assert.equal(agg.metrics.count('request a,initialize'), 1)
    for (const call of ['bytes a,in', 'bytes a,out', 'bytes b,in', 'bytes b,out']) {
      assert.ok(agg.metrics.count(call) > 0, call)
    }
    assert.equal(agg.metrics.count('upstreamFailure a'), 0)
    await agg.close()
  })
})
