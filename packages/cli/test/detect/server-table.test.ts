// Reading a table of server entries: the notes about placeholders the client would expand.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { placeholdersIn, serversFromTable } from '../../src/detect/server-table.js'

const from = { client: 'unknown' as const, source: 'mcp.json', warn: () => {} }
const notInput = (inner: string): boolean => !inner.startsWith('input:')

describe('placeholdersIn', () => {
  it('finds what the regular expression it replaces found', () => {
    const texts = [
      '',
      'plain',
      '${A}',
      'x ${A} y ${B}z',
      '${A ${B}',
      '${input:x}',
      '${input:${X}}',
      '${}',
      '$${A}}',
      '${A',
      '${input:a ${B} ${C',
    ]
    for (const text of texts) {
      const expected = text.match(/\$\{(?!input:)[^}]*\}/g) ?? []
      assert.deepEqual(placeholdersIn(text, notInput), expected, text)
      const inputs = [...text.matchAll(/\$\{input:([^}]*)\}/g)].map((m) => m[0])
      assert.deepEqual(
        placeholdersIn(text, (inner) => inner.startsWith('input:')),
        inputs,
        text,
      )
    }
  })
  it('reads 4 MiB of "${" without a "}" in one pass', () => {
    // The regular expression read to the end from each "${": hours on such a file.
    assert.deepEqual(placeholdersIn('${'.repeat(2 * 1024 * 1024), notInput), [])
    const refused = '${input:'.repeat(512 * 1024) + '}'
    assert.deepEqual(placeholdersIn(refused, notInput), [])
  })
})

describe('serversFromTable', () => {
  it('notes placeholders, and takes a command of 4 MiB of "${"', () => {
    const [server] = serversFromTable({ s: { command: 'run', args: ['${HOME}/x'] } }, from)
    assert.deepEqual(server!.notes, [
      'placeholders kept as written (the client expands them): ${HOME}',
    ])
    const [hostile] = serversFromTable({ s: { command: '${'.repeat(2 * 1024 * 1024) } }, from)
    assert.deepEqual(hostile!.notes, [])
  })
})
