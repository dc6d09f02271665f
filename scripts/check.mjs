#!/usr/bin/env node
// The static checks of `npm test`, side by side: the TypeScript build and type-check, ESLint and
// Prettier. Each is one process on one core, and ESLint alone takes about as long as the other
// two together, so running them at once saves most of a minute. Each one's output is printed
// whole when it ends (not interleaved); the exit status is 1 when any of them failed.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

const CHECKS = [
  ['type-check', 'npm', ['run', '--silent', 'typecheck']],
  ['ESLint', 'npx', ['--no-install', 'eslint', '.']],
  ['Prettier', 'npx', ['--no-install', 'prettier', '--check', '.']],
]

/** Run one check, collecting its output; resolves with whether it passed. */
function run([name, command, args]) {
  return new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    const output = []
    child.stdout.on('data', (chunk) => output.push(chunk))
    child.stderr.on('data', (chunk) => output.push(chunk))
    const finish = (passed, why) => {
      const secs = ((Date.now() - started) / 1000).toFixed(1)
      process.stdout.write(`\n== ${name}: ${passed ? 'passed' : `FAILED (${why})`} in ${secs} s\n`)
      process.stdout.write(Buffer.concat(output))
      resolve(passed)
    }
    child.on('error', (error) => finish(false, error.message))
    child.on('close', (code, signal) => finish(code === 0, signal ?? `exit status ${code}`))
  })
}

const results = await Promise.all(CHECKS.map(run))
process.exit(results.every(Boolean) ? 0 : 1)
