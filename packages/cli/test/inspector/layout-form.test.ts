/**
 * The Config tab's validation: the same rules as the upstreams file, because the rows become
 * upstreams-file TOML and are read back by the file's parser; and the TOML it saves loads again.
 */
import assert from 'node:assert/strict'
import { lstat, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { UsageError } from '../../src/cli-errors.js'
import { rowsFromSpecs, validateLayout } from '../../src/inspector/layout-form.js'
import { upstreamsToToml, writeUpstreamsFile } from '../../src/inspector/upstreams-toml.js'
import type { UpstreamSpec } from '../../src/upstreams/upstream-spec.js'
import { loadUpstreamsFile } from '../../src/upstreams/upstreams-file.js'

const rejects = (rows: unknown, pattern: RegExp): void => {
  assert.throws(
    () => validateLayout(rows, []),
    (err: unknown) => {
      assert.ok(err instanceof UsageError)
      assert.match(err.message, pattern)
      return true
    },
  )
}

describe('validateLayout', () => {
  it('turns rows into specs and the TOML of an upstreams file', () => {
    const { specs, toml } = validateLayout(
      [
        { name: 'docs', kind: 'http', value: ' http://127.0.0.1:3000/mcp ' },
        { name: 'files', kind: 'stdio', value: 'npx "files server" --root "C:\\x"' },
      ],
      [],
    )
    assert.deepEqual(specs, [
      { kind: 'http', name: 'docs', url: 'http://127.0.0.1:3000/mcp' },
      { kind: 'stdio', name: 'files', command: 'npx "files server" --root "C:\\x"' },
    ])
    assert.match(toml, /\[upstreams\.docs\]\nhttp = "http:\/\/127\.0\.0\.1:3000\/mcp"/)
  })

  it('makes a single unnamed row single-upstream mode', () => {
    const { specs, toml } = validateLayout([{ name: '', kind: 'stdio', value: 'my-server' }], [])
    assert.deepEqual(specs, [{ kind: 'stdio', name: null, command: 'my-server' }])
    assert.match(toml, /\[upstreams\.main\]/)
  })

  it('rejects what the upstreams file rejects, naming the row', () => {
    rejects([], /at least one upstream/)
    rejects('nope', /at least one upstream/)
    rejects([{ name: 'a', kind: 'ftp', value: 'x' }], /upstream 1: needs a name, a kind/)
    rejects(
      [
        { name: 'a', kind: 'http', value: 'http://x/' },
        { name: '', kind: 'http', value: 'http://y/' },
      ],
      /upstream 2 needs a name/,
    )
    rejects(
      [
        { name: 'Bad Name', kind: 'http', value: 'http://x/' },
        { name: 'b', kind: 'http', value: 'http://y/' },
      ],
      /name "Bad Name" is invalid; names are 1-32 characters/,
    )
    rejects(
      [
        { name: 'a', kind: 'http', value: 'http://x/' },
        { name: 'a', kind: 'stdio', value: 'y' },
      ],
      /upstream 2: name "a" is used twice/,
    )
    rejects([{ name: 'a', kind: 'http', value: 'ftp://x/' }], /^\[upstreams\.a\]: .*http:\/\//)
    rejects([{ name: 'a', kind: 'http', value: 'not a url' }], /is not a URL/)
    rejects([{ name: 'a', kind: 'stdio', value: '   ' }], /needs a value/)
  })

  it('keeps the arguments and environment of an unchanged stdio entry', () => {
    const current: UpstreamSpec[] = [
      { kind: 'stdio', name: 'db', command: 'db-server', argv: ['db-server'], env: { K: 'v' } },
      { kind: 'http', name: 'web', url: 'http://127.0.0.1:1/' },
    ]
    const rows = rowsFromSpecs(current)
    assert.deepEqual(rows[0], { name: 'db', kind: 'stdio', value: 'db-server' })
    assert.deepEqual(validateLayout(rows, current).specs, current)
    const changed = validateLayout([{ ...rows[0], value: 'db-server --v2' }, rows[1]], current)
    assert.deepEqual(changed.specs[0], { kind: 'stdio', name: 'db', command: 'db-server --v2' })
  })
})

describe('writeUpstreamsFile', () => {
  it('writes a file that --upstreams-file loads back to the same layout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-layout-'))
    try {
      const path = join(dir, 'upstreams.toml')
      const specs: UpstreamSpec[] = [
        { kind: 'http', name: 'docs', url: 'http://127.0.0.1:3000/mcp?x=%221%22' },
        { kind: 'stdio', name: 'files', command: 'node "a b.js" \\ --n=1\t#not-a-comment' },
      ]
      await writeUpstreamsFile(path, specs)
      assert.equal(await readFile(path, 'utf8'), upstreamsToToml(specs))
      assert.deepEqual(loadUpstreamsFile(path), specs)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('never writes through a link planted where its temporary file goes', async () => {
    // Found by hostile review: the temporary file was `<path>.<pid>.tmp`, opened following
    // links, so another user of a shared directory made it a link to one of the user's files,
    // which Save then overwrote.
    const dir = await mkdtemp(join(tmpdir(), 'burrow-layout-'))
    try {
      const path = join(dir, 'burrow-upstreams.toml')
      const precious = join(dir, 'precious')
      await writeFile(precious, 'keep me\n')
      await symlink(precious, `${path}.${process.pid}.tmp`)
      const specs: UpstreamSpec[] = [{ kind: 'http', name: null, url: 'http://127.0.0.1:3000/mcp' }]
      await writeUpstreamsFile(path, specs)
      assert.equal(await readFile(precious, 'utf8'), 'keep me\n')
      assert.equal((await lstat(path)).isSymbolicLink(), false)
      assert.equal(await readFile(path, 'utf8'), upstreamsToToml(specs))
      assert.equal((await stat(path)).mode & 0o777, 0o600)
      const left = (await readdir(dir)).filter((name) => name.endsWith('.tmp'))
      assert.deepEqual(left, [`burrow-upstreams.toml.${process.pid}.tmp`])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
