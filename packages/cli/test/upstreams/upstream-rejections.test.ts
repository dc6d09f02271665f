// Every rejection of upstream flags and upstreams files (docs/configuration.md), through the real
// `burrow` binary: the message names the flag or file (and line) and the rule, the exit status is
// 1, and nothing starts (no connection is attempted).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { BURROW } from '../../../../test/helpers/stack.js'

const run = promisify(execFile)
// A broker address where nothing listens: a rejection must come before any connection attempt.
const NOWHERE = 'ws://127.0.0.1:9'

async function burrow(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BURROW, '--broker', NOWHERE, ...args], {
      env: {
        ...process.env,
        BURROW_API_KEY: 'mtk_test',
        BURROW_NO_UPDATE_CHECK: '1',
        BURROW_NO_TELEMETRY: '1',
      },
      timeout: 10_000,
    })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

async function rejected(args: string[], ...patterns: RegExp[]): Promise<void> {
  const { code, stderr } = await burrow(args)
  assert.equal(code, 1, `exit status for ${args.join(' ')}: ${stderr}`)
  for (const p of patterns) assert.match(stderr, p)
  assert.doesNotMatch(stderr, /reconnecting|Tunnel online/, 'nothing started')
}

describe('upstream flag rejections', () => {
  it('a bare value in aggregator mode', () =>
    rejected(
      ['up', '--stdio', 'a=node a.js', '--stdio', 'node b.js'],
      /--stdio "node b\.js"/,
      /name=value/,
      /names are 1-32 characters/,
    ))
  it('a bad name', () =>
    rejected(
      ['up', '--stdio', 'Files=node a.js', '--upstream', 'b=http://127.0.0.1:1/mcp'],
      /--stdio "Files=node a\.js"/,
      /name "Files" is invalid/,
      /a lower-case letter/,
    ))
  it('a name longer than 32 characters', () =>
    rejected(
      ['up', '--stdio', `${'a'.repeat(33)}=node a.js`, '--stdio', 'b=node b.js'],
      /is invalid/,
    ))
  it('a repeated name', () =>
    rejected(
      ['up', '--stdio', 'a=node a.js', '--upstream', 'a=http://127.0.0.1:1/mcp'],
      /--upstream "a=http/,
      /"a" is used twice/,
    ))
  it('names that make prefixed names ambiguous', () =>
    rejected(
      ['up', '--stdio', 'a=node a.js', '--stdio', 'a__b=node b.js'],
      /"a" and "a__b" are ambiguous/,
      /"a__b__x" would be "b__x" of "a" and "x" of "a__b"; rename one/,
    ))
  it('--upstreams-file together with --upstream or --stdio', () =>
    rejected(
      ['up', '--upstreams-file', 'x.toml', '--stdio', 'node a.js'],
      /--upstreams-file cannot be combined with --stdio/,
    ))
  it('a URL that is not http(s)', () =>
    rejected(['up', '--upstream', 'ftp://x/mcp'], /--upstream "ftp:\/\/x\/mcp" must be an http/))
  it('shell operators in --stdio', () =>
    rejected(['up', '--stdio', 'node a.js | tee log'], /shell operators/))
})

describe('upstreams file rejections', () => {
  let dir: string
  const file = (name: string, text: string) => {
    const path = join(dir, name)
    writeFileSync(path, text)
    return path
  }
  before(() => (dir = mkdtempSync(join(tmpdir(), 'burrow-upstreams-'))))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('a section that sets both http and stdio', () => {
    const path = file(
      'both.toml',
      '[upstreams.a]\nstdio = "node a.js"\n\n[upstreams.db]\nhttp = "http://127.0.0.1:1/mcp"\nstdio = "node db.js"\n',
    )
    return rejected(
      ['up', '--upstreams-file', path],
      new RegExp(`upstreams file ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line 4`),
      /\[upstreams\.db\] sets both "http" and "stdio"; keep one/,
    )
  })
  it('a section that sets neither', () =>
    rejected(
      [
        'up',
        '--upstreams-file',
        file('neither.toml', '[upstreams.a]\nstdio = "node a.js"\n[upstreams.b]\nname = "x"\n'),
      ],
      /line 3: \[upstreams\.b\]/,
      /unknown key "name"|sets neither/,
    ))
  it('a section that sets neither, with nothing in it', () =>
    rejected(
      [
        'up',
        '--upstreams-file',
        file('empty-section.toml', '[upstreams.a]\nstdio = "node a.js"\n[upstreams.b]\n'),
      ],
      /line 3: \[upstreams\.b\] sets neither "http" nor "stdio"; set one/,
    ))
  it('no [upstreams.*] sections', () =>
    rejected(
      ['up', '--upstreams-file', file('none.toml', '# nothing here\n')],
      /no \[upstreams\.<name>\] sections/,
    ))
  it('only another table: it is named', () =>
    rejected(
      ['up', '--upstreams-file', file('other.toml', '# nothing here\n[other]\nx = 1\n')],
      /other\.toml line 2: unknown key "other"; the file holds only \[upstreams\.<name>\] tables/,
    ))
  it('an invalid name', () =>
    rejected(
      [
        'up',
        '--upstreams-file',
        file(
          'badname.toml',
          '[upstreams.a]\nstdio = "node a.js"\n\n[upstreams.Bad_Name]\nstdio = "node b.js"\n',
        ),
      ],
      /line 4: \[upstreams\.Bad_Name\] has an invalid name/,
      /a lower-case letter/,
    ))
  it('a repeated name', () =>
    rejected(
      [
        'up',
        '--upstreams-file',
        file(
          'dup.toml',
          '[upstreams.a]\nstdio = "node a.js"\n[upstreams.a]\nhttp = "http://127.0.0.1:1/mcp"\n',
        ),
      ],
      /line 3: \[upstreams\.a\] appears twice/,
    ))
  it('broken TOML: the line, the column and the line itself with a caret', () =>
    rejected(
      ['up', '--upstreams-file', file('broken.toml', '[upstreams.a\nstdio = \n')],
      /broken\.toml line 1, column 13: not valid TOML: illegal character in key\n {2}1: {2}\[upstreams\.a\n {18}\^/,
    ))
  it('a value without quotes: line and column', () =>
    rejected(
      ['up', '--upstreams-file', file('unquoted.toml', '[upstreams.a]\nhttp = http://x\n')],
      /unquoted\.toml line 2, column 8: not valid TOML: invalid value\n.*\n {2}2: {2}http = http:\/\/x\n {13}\^/,
    ))
  it('an unknown key in a section: its own line, and the key meant', () =>
    rejected(
      [
        'up',
        '--upstreams-file',
        file(
          'typo.toml',
          '[upstreams.a]\n# the docs server\nhtpp = "http://127.0.0.1:1/mcp"\nhttp = "http://127.0.0.1:1/mcp"\n',
        ),
      ],
      /typo\.toml line 3: \[upstreams\.a\] has unknown key "htpp" \(did you mean "http"\?\); only "http" or "stdio" are allowed/,
    ))
  it('a key or table outside [upstreams.<name>] is named, with its line', async () => {
    await rejected(
      [
        'up',
        '--upstreams-file',
        file('singular.toml', '# layout\n[upstream.docs]\nhttp = "http://127.0.0.1:1/mcp"\n'),
      ],
      /singular\.toml line 2: unknown key "upstream" \(did you mean \[upstreams\.<name>\]\?\); the file holds only \[upstreams\.<name>\] tables/,
    )
    await rejected(
      [
        'up',
        '--upstreams-file',
        file('extra.toml', '[upstreams.a]\nstdio = "node a.js"\n[settings]\ntimeout = 3\n'),
      ],
      /extra\.toml line 3: unknown key "settings"; the file holds only \[upstreams\.<name>\] tables/,
    )
  })
  it('a missing file', () =>
    rejected(['up', '--upstreams-file', join(dir, 'missing.toml')], /cannot read it \(ENOENT\)/))
})
