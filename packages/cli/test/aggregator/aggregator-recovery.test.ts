/**
 * One upstream down while the others keep working: a stdio child killed (the supervisor restarts
 * it and the aggregator initializes it again) and an HTTP server stopped, then started again on
 * the same port (the aggregator retries, and re-initializes when the server forgot its session).
 * Agents see the upstream's tools vanish and come back through `list_changed`, calls to it fail
 * fast with an error naming it and the cause, and their own sessions survive throughout.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import {
  allTools,
  closeAllAggregators,
  connectAgent,
  startAggregator,
  startHttpFixture,
  stopChild,
  textOf,
  until,
  type Agent,
} from './aggregator-harness.js'

after(closeAllAggregators)

const echo = async (agent: Agent, upstream: string, text = 'hi') =>
  textOf(await agent.client.callTool({ name: `${upstream}__echo`, arguments: { text } }))

/** True once `agent` lists tools of `upstream` (or, with `present` false, none). */
async function lists(agent: Agent, upstream: string, present = true): Promise<boolean> {
  const { names } = await allTools(agent.client)
  return names.some((n) => n.startsWith(`${upstream}__`)) === present
}

describe('aggregator with an upstream down', { timeout: 60_000 }, () => {
  it('drops a killed stdio upstream, fails its calls fast, and brings it back', async () => {
    const agg = await startAggregator([
      { name: 'a', stdio: ['--label', 'a'] },
      { name: 'b', stdio: ['--label', 'b'] },
    ])
    const agent = await connectAgent(agg.url)
    assert.equal(await echo(agent, 'a'), 'a: hi')
    const pending = agent.client.callTool({ name: 'a__slow', arguments: { ms: 20_000 } })
    const changes = agent.listChanged
    const started = Date.now()
    process.kill(agg.supervisors.get('a')!.pid!, 'SIGKILL')

    const inFlight = await pending.then(
      () => assert.fail('the call survived its upstream'),
      (err: unknown) => err as McpError,
    )
    assert.ok(Date.now() - started < 5_000, 'the call in flight failed at once')
    assert.match(inFlight.message, /upstream "a" is unavailable: the stdio server was killed/)
    await until(() => agent.listChanged > changes)

    // While it restarts (or soon after): b works, a's calls fail naming a and the cause.
    const down = await agent.client.callTool({ name: 'a__echo', arguments: {} }).then(
      () => undefined,
      (err: unknown) => err as McpError,
    )
    if (down) {
      assert.equal(down.code, -32000)
      assert.match(down.message, /upstream "a" is unavailable: .*(SIGKILL|restarting)/)
    }
    assert.equal(await echo(agent, 'b'), 'b: hi')

    await until(async () => (await lists(agent, 'a')) && agg.backend.links[0]!.ready)
    assert.equal(await echo(agent, 'a', 'again'), 'a: again')
    assert.equal(agg.metrics.count('upstreamFailure a'), 1)
    assert.equal(agg.metrics.count('upstreamRecovery a'), 1)
    assert.equal(agg.metrics.count('upstreamFailure b'), 0)
    await agg.logger.waitForCount(/initialize #1 a/, 2)
    await agg.close()
  })

  it('lists without a crashed upstream while it is down', async () => {
    const agg = await startAggregator(
      [
        { name: 'a', stdio: ['--label', 'a'] },
        { name: 'b', stdio: ['--label', 'b'] },
      ],
      {},
    )
    const agent = await connectAgent(agg.url)
    const a = agg.backend.links[0]!
    // Hold the restart: stop the supervisor's child for good, so a stays down.
    await agg.supervisors.get('a')!.close()
    await until(() => !a.ready)
    assert.ok(await lists(agent, 'a', false))
    assert.ok(await lists(agent, 'b'))
    const err = await agent.client.callTool({ name: 'a__echo', arguments: {} }).then(
      () => assert.fail('a answered'),
      (e: unknown) => e as McpError,
    )
    assert.match(err.message, /upstream "a" is unavailable: the stdio server was killed|exited/)
    await agg.close()
  })

  it('retries a stopped HTTP upstream and re-initializes when it is back', async () => {
    const first = await startHttpFixture(['--label', 'c'])
    const agg = await startAggregator([
      { name: 'a', stdio: ['--label', 'a'] },
      { name: 'c', http: first.url },
    ])
    const agent = await connectAgent(agg.url)
    assert.equal(await echo(agent, 'c'), 'c: hi')
    const changes = agent.listChanged
    await stopChild(first.child)

    const err = await agent.client.callTool({ name: 'c__echo', arguments: {} }).then(
      () => assert.fail('a stopped server answered'),
      (e: unknown) => e as McpError,
    )
    assert.match(err.message, /upstream "c"/)
    assert.match(err.message, /unreachable|ECONNREFUSED|response stream/)
    await until(() => agent.listChanged > changes)
    assert.ok(await lists(agent, 'c', false))
    assert.equal(await echo(agent, 'a'), 'a: hi')

    await startHttpFixture(['--label', 'c'], first.port)
    await until(async () => agg.backend.links[1]!.ready && (await lists(agent, 'c')))
    assert.equal(await echo(agent, 'c', 'back'), 'c: back')
    assert.equal(agg.metrics.count('upstreamFailure c'), 1)
    assert.equal(agg.metrics.count('upstreamRecovery c'), 1)
    await agg.close()
  })

  it('initializes again when a restarted HTTP server no longer knows the session', async () => {
    const first = await startHttpFixture(['--label', 'c'])
    const agg = await startAggregator(
      [
        { name: 'a', stdio: ['--label', 'a'] },
        // The agent's call, not a GET stream reopening, is what finds the session gone.
        { name: 'c', http: first.url, reopenGetMs: 30_000 },
      ],
      { retryDelayMs: () => 200 },
    )
    const agent = await connectAgent(agg.url)
    assert.equal(await echo(agent, 'c'), 'c: hi')
    // Replace the server at once: the aggregator's next request carries a session it never saw.
    await stopChild(first.child)
    await startHttpFixture(['--label', 'c'], first.port)
    const outcomes: string[] = []
    await until(async () => {
      const outcome = await echo(agent, 'c', 'x').catch((e: Error) => e.message)
      outcomes.push(outcome)
      return outcome === 'c: x'
    }, 15_000)
    assert.ok(
      outcomes.slice(0, -1).every((o) => /upstream "c"/.test(o)),
      `failures name the upstream: ${outcomes.join(' | ')}`,
    )
    assert.match(agg.logger.lines.join('\n'), /no longer knows our session \(HTTP 404\)/)
    await agg.close()
  })
})
