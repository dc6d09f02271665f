#!/usr/bin/env node
// Runs every *.test.ts under packages/*/test and test/ with node:test (Node 20 does not expand
// globs itself). Extra arguments are passed to `node --test`, e.g. a --test-name-pattern.
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

function collect(dir, out) {
  let entries
  try {
    entries = readdirSync(dir)
  } catch {
    return out
  }
  for (const name of entries.sort()) {
    if (name === 'node_modules' || name === 'dist') continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) collect(path, out)
    else if (name.endsWith('.test.ts')) out.push(relative(root, path))
  }
  return out
}

const files = [
  ...collect(join(root, 'packages/protocol/test'), []),
  ...collect(join(root, 'packages/server/test'), []),
  ...collect(join(root, 'packages/cli/test'), []),
  ...collect(join(root, 'test'), []),
]
const only = process.argv.slice(2).filter((a) => a.endsWith('.test.ts'))
const extra = process.argv.slice(2).filter((a) => !a.endsWith('.test.ts'))
const selected = only.length > 0 ? only : files
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    '--test-timeout=180000',
    ...extra,
    ...selected,
  ],
  { cwd: root, stdio: 'inherit' },
)
process.exit(result.status ?? 1)
