// The README's Usage section quotes `burrow --help`, `burrow up --help` and `burrow detect --help`
// as the real binary prints them.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'
import { BURROW, ROOT } from '../helpers/stack.js'

const run = promisify(execFile)

describe('README usage', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  for (const args of [['--help'], ['up', '--help'], ['detect', '--help']]) {
    it(`quotes "burrow ${args.join(' ')}" verbatim`, async () => {
      const { stdout } = await run(process.execPath, [BURROW, ...args])
      assert.ok(
        readme.includes(`$ burrow ${args.join(' ')}\n${stdout}\`\`\``),
        `README.md does not quote this output:\n${stdout}`,
      )
    })
  }
})
