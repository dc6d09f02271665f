// What several files of one client make together: the last entry of each name wins.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { FoundServer } from '../../src/detect/detected-server.js'
import { preferLast } from '../../src/detect/detector.js'

function found(name: string, source: string): FoundServer {
  return {
    name,
    client: 'cursor',
    source,
    transport: { type: 'http', url: `http://127.0.0.1/${name}` },
    notes: [],
  }
}

describe('preferLast', () => {
  it('keeps the last entry of each name, in the order found', () => {
    const kept = preferLast([found('a', 'user'), found('b', 'user'), found('a', 'project')])
    assert.deepEqual(
      kept.map((s) => `${s.name}@${s.source}`),
      ['b@user', 'a@project'],
    )
  })
  it('takes 200,000 entries in one pass (a search of the rest per entry hung detect)', () => {
    // A repository's .mcp.json of 4 MiB holds that many; comparing each entry with every later
    // one took hours.
    const entries = Array.from({ length: 200_000 }, (_, i) => found(`s${i}`, 'project'))
    entries.push(found('s0', 'local'))
    const kept = preferLast(entries)
    assert.equal(kept.length, 200_000)
    assert.equal(kept[0]!.name, 's1')
    assert.equal(kept.at(-1)!.source, 'local')
  })
})
