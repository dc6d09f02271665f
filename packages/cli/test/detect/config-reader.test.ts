/**
 * The configuration reader of `detect` on what a hostile repository or another local user can
 * put where a client's configuration file belongs: a link to `/dev/zero`, a FIFO, a directory, a
 * file far larger than any configuration. Each is skipped with a warning naming it, at once;
 * a real file is still read.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { createConfigReader, MAX_CONFIG_BYTES } from '../../src/detect/config-reader.js'

describe('createConfigReader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-config-reader-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('skips what is not a regular file or is too large, with a warning, and reads the rest', async () => {
    const warnings: string[] = []
    const read = createConfigReader((m) => warnings.push(m), { warnIfMissing: true })
    const zero = join(dir, 'zero.json')
    symlinkSync('/dev/zero', zero)
    const fifo = join(dir, 'fifo.json')
    execFileSync('mkfifo', [fifo])
    const folder = join(dir, 'folder.json')
    mkdirSync(folder)
    const big = join(dir, 'big.json')
    writeFileSync(big, `{"pad":"${' '.repeat(MAX_CONFIG_BYTES)}"}`)
    const good = join(dir, 'good.json')
    writeFileSync(good, '{"mcpServers":{"a":{"command":"x"}}}')

    for (const path of [zero, fifo, folder, big]) assert.equal(await read(path, 'json'), undefined)
    assert.deepEqual(await read(good, 'json'), { mcpServers: { a: { command: 'x' } } })
    assert.deepEqual(warnings, [
      `${zero}: it is not a regular file; skipped`,
      `${fifo}: it is not a regular file; skipped`,
      `${folder}: it is not a regular file; skipped`,
      `${big}: it is larger than 4 MiB; skipped`,
    ])
  })
})
