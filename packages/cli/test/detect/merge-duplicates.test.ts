// One server configured in several clients is listed once, with every client and file.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { FoundServer } from '../../src/detect/detected-server.js'
import { mergeDuplicates } from '../../src/detect/merge-duplicates.js'

const stdio = (
  name: string,
  client: FoundServer['client'],
  env: Record<string, string> = {},
): FoundServer => ({
  name,
  client,
  source: `/${client}.json`,
  transport: { type: 'stdio', command: 'npx', args: ['-y', 'srv'], env },
  notes: [],
})

describe('mergeDuplicates', () => {
  it('merges the same transport across clients, keeping the first name', () => {
    const merged = mergeDuplicates([
      stdio('Files', 'claude-desktop', { A: '1', B: '2' }),
      stdio('files', 'cursor', { B: '2', A: '1' }),
      { ...stdio('files', 'codex'), transport: { type: 'http', url: 'http://127.0.0.1:1/mcp' } },
    ])
    assert.equal(merged.length, 2)
    assert.equal(merged[0]!.name, 'Files')
    assert.equal(merged[0]!.sanitizedName, 'files')
    assert.deepEqual(merged[0]!.clients, ['claude-desktop', 'cursor'])
    assert.deepEqual(merged[0]!.sources, ['/claude-desktop.json', '/cursor.json'])
    assert.equal(merged[1]!.sanitizedName, 'files-2')
    assert.deepEqual(merged[1]!.clients, ['codex'])
  })
  it('keeps servers that differ only in env apart', () => {
    const merged = mergeDuplicates([
      stdio('a', 'cursor', { K: '1' }),
      stdio('a', 'cursor', { K: '2' }),
    ])
    assert.deepEqual(
      merged.map((m) => m.sanitizedName),
      ['a', 'a-2'],
    )
  })
})
