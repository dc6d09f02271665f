/**
 * The scenario of log levels shared by one server's agents, run against a stdio server and an
 * aggregate: four agents (one asks for `emergency`, one for `debug`, one for `warning`, one for
 * nothing) each hear only the lines at or above their level, the server is asked for the most
 * verbose, and it goes back to `warning` when the `debug` agent leaves.
 */
import assert from 'node:assert/strict'
import type { Agent } from '../aggregator/aggregator-harness.js'

/** How the scenario reaches the server under test. */
export interface LevelScenario {
  readonly connect: (name: string) => Promise<Agent>
  /** The last level the server was set to. */
  readonly level: (agent: Agent) => Promise<string>
  /** Have the server write `message` at `level`. */
  readonly log: (agent: Agent, level: string, message: string) => Promise<void>
  readonly until: (check: () => boolean) => Promise<void>
}

/** Run the scenario; every agent it connected is closed at its end. */
export async function assertLevelsApart(s: LevelScenario): Promise<void> {
  const quiet = await s.connect('quiet')
  const loud = await s.connect('loud')
  const mid = await s.connect('mid')
  const plain = await s.connect('plain')
  const heard = (agent: Agent): unknown[] => agent.logs.map((line) => line.data)
  try {
    await quiet.client.setLoggingLevel('emergency')
    await loud.client.setLoggingLevel('debug')
    await mid.client.setLoggingLevel('warning')
    assert.equal(await s.level(quiet), 'debug', 'the server writes what the most verbose asked')
    await s.log(quiet, 'info', 'info-1')
    await s.log(quiet, 'error', 'error-1')
    await s.log(quiet, 'emergency', 'end-1')
    await s.until(() => [quiet, loud, mid, plain].every((a) => heard(a).includes('end-1')))
    assert.deepEqual(heard(quiet), ['end-1'])
    assert.deepEqual(heard(loud), ['info-1', 'error-1', 'end-1'])
    assert.deepEqual(heard(mid), ['error-1', 'end-1'])
    assert.deepEqual(heard(plain), ['info-1', 'error-1', 'end-1'])
    // The agent that asked for debug leaves: the server goes back to the others' warning.
    await loud.transport.terminateSession()
    await loud.client.close()
    const deadline = Date.now() + 10_000
    while ((await s.level(quiet)) !== 'warning') {
      if (Date.now() > deadline) assert.fail(`the server stayed at ${await s.level(quiet)}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await s.log(quiet, 'notice', 'notice-2')
    await s.log(quiet, 'emergency', 'end-2')
    await s.until(() => [quiet, mid, plain].every((a) => heard(a).includes('end-2')))
    assert.deepEqual(heard(mid), ['error-1', 'end-1', 'end-2'])
    // plain set no level: it hears what the server writes (the fixture writes whatever it is asked).
    assert.deepEqual(heard(plain), ['info-1', 'error-1', 'end-1', 'notice-2', 'end-2'])
  } finally {
    for (const agent of [quiet, loud, mid, plain]) await agent.client.close().catch(() => {})
  }
}
