#!/usr/bin/env node
// `npm run sea`: burrow as one executable for a machine without Node.js (Node's single executable
// applications), for the platform and architecture of the Node.js that runs this script:
// packages/cli/dist/sea/burrow (burrow.exe on Windows). Run `npm run build` first.
//
// A SEA's main script must be CommonJS, and its `require` reaches only Node's built-in modules,
// so everything the client imports is bundled into one CommonJS file, its version included (the
// client otherwise reads it from its package.json). `ws` is told to skip its optional native
// helpers (bufferutil, utf-8-validate), which it does without them. The bundle becomes a blob
// that `postject` injects into a copy of this `node`. macOS also needs the copy re-signed
// (`codesign --sign -`), which this script does not do.
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const cli = join(root, 'packages/cli')
const out = process.argv[2] ?? join(cli, 'dist/sea')
const { version } = JSON.parse(readFileSync(join(cli, 'package.json'), 'utf8'))
const exe = join(out, process.platform === 'win32' ? 'burrow.exe' : 'burrow')
const script = join(out, 'burrow.cjs')
const blob = join(out, 'burrow.blob')

mkdirSync(out, { recursive: true })
await build({
  entryPoints: [join(cli, 'dist/bin/burrow.js')],
  outfile: script,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['bufferutil', 'utf-8-validate'],
  define: {
    'process.env.WS_NO_BUFFER_UTIL': '"1"',
    'process.env.WS_NO_UTF_8_VALIDATE': '"1"',
  },
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [
    {
      name: 'compiled-in-version',
      setup(builder) {
        builder.onLoad({ filter: /[\\/]dist[\\/]version\.js$/ }, () => ({
          contents: `export const CLI_VERSION = ${JSON.stringify(version)}`,
          loader: 'js',
        }))
      },
    },
  ],
})
const config = join(out, 'sea-config.json')
writeFileSync(
  config,
  JSON.stringify({ main: script, output: blob, disableExperimentalSEAWarning: true }),
)
execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: 'ignore' })
rmSync(exe, { force: true })
copyFileSync(process.execPath, exe)
const postject = join(root, 'node_modules/postject/dist/cli.js')
execFileSync(
  process.execPath,
  [
    postject,
    exe,
    'NODE_SEA_BLOB',
    blob,
    '--sentinel-fuse',
    'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
    ...(process.platform === 'darwin' ? ['--macho-segment-name', 'NODE_SEA'] : []),
  ],
  { stdio: 'ignore' },
)
for (const file of [script, blob, config]) rmSync(file)
process.stdout.write(`${exe}\n`)
