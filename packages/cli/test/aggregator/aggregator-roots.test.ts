/**
 * Roots and the upstreams of an aggregate, each of which has one session that every agent
 * shares: the roots-following-server fixture (over stdio, and over Streamable HTTP) replaces its
 * allowed directories with its client's roots after `initialized` and on `roots/list_changed`, as
 * the reference filesystem server does. The aggregate forwards no agent's `roots/list_changed`
 * and answers a `roots/list` that came during no call itself, with an error; one asked during a
 * call goes to that call's agent alone, as sampling does.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { fixturePath } from '../helpers/fixtures.js'
import { connectRootsAgent } from '../helpers/roots-agent.js'
import {
  closeAllAggregators,
  connectAgent,
  startAggregator,
  startHttpFixture,
  textOf,
  until,
  type Aggregator,
} from './aggregator-harness.js'

const SCRIPT = fixturePath('roots-following-server.mjs')
const PROJECT = 'file:///home/owner/project'

/** What the fixture's `allowed` tool reports. */
interface Followed {
  allowed: string[]
  declared: boolean[]
  refusals: string[]
}

after(closeAllAggregators)

describe("an aggregate's upstreams that follow their client roots", { timeout: 60_000 }, () => {
  let agg: Aggregator
  /** What the HTTP upstream wrote on stderr so far. */
  let httpLog = ''

  before(async () => {
    const http = await startHttpFixture(['--allow', PROJECT], 0, SCRIPT)
    http.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (httpLog += chunk))
    agg = await startAggregator([
      { name: 's', server: { command: process.execPath, args: [SCRIPT, '--allow', PROJECT] } },
      { name: 'h', http: http.url },
      { name: 'p', stdio: ['--label', 'p'] },
    ])
  })

  it('hostile: keep their own directories whatever roots agents declare and announce', async () => {
    const owner = await connectRootsAgent(agg.url, [PROJECT])
    const hostile = await connectRootsAgent(agg.url, ['file:///'])
    await hostile.client.sendRootsListChanged()
    for (const upstream of ['s', 'h']) {
      assert.equal(
        await hostile.call(`${upstream}__ask-roots`, { later: true }),
        'asking after this answer',
      )
      // Over HTTP that request comes on the GET stream, which a call of the owner's in flight
      // could overtake: it would then be asked of the owner, as a sampling request would.
      // (Its request after initialized may have gone before the GET stream opened: lost.)
      if (upstream === 'h') await until(() => httpLog.includes('roots refused'))
      const seen = JSON.parse(await owner.call(`${upstream}__allowed`)) as Followed
      assert.deepEqual(seen.allowed, [PROJECT], upstream)
      assert.deepEqual(seen.declared, [true], `${upstream}: the aggregate declared roots`)
      // After the hostile call (and after initialized): never on the notification.
      assert.ok(seen.refusals.length >= 1, `${upstream} ${JSON.stringify(seen)}`)
      for (const refusal of seen.refusals) assert.match(refusal, /came during no call/)
    }
    assert.equal(owner.asked() + hostile.asked(), 0, 'no agent was asked for its roots')
  })

  it('ask a roots/list during a call of the calling agent alone, as sampling', async () => {
    const caller = await connectRootsAgent(agg.url, ['file:///caller'])
    const other = await connectRootsAgent(agg.url, ['file:///other'])
    await other.call('s__allowed')
    for (const upstream of ['s', 'h']) {
      const answered = JSON.parse(await caller.call(`${upstream}__ask-roots`)) as { uri: string }[]
      assert.deepEqual(answered, [{ uri: 'file:///caller' }], upstream)
      const seen = JSON.parse(await other.call(`${upstream}__allowed`)) as Followed
      assert.deepEqual(seen.allowed, [PROJECT], upstream)
    }
    assert.deepEqual([caller.asked(), other.asked()], [2, 0])
    const sampler = await connectAgent(agg.url, 'sampler')
    const asked = await sampler.client.callTool({ name: 'p__ask', arguments: { prompt: 'hi' } })
    assert.equal(textOf(asked), 'p got: sampler says: hi')
  })
})
