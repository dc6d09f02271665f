#!/usr/bin/env node
// The client's packed form: `npm pack -w packages/cli` runs this (its `prepack`, after `tsc -b`)
// to turn the compiled client (packages/cli/dist) into one ES module, dist/burrow.bundle.js, the
// only file of dist/ the tarball ships. `@burrow/protocol`, a workspace that is on no registry,
// is inlined; every package in the client's `dependencies` stays an import, installed from the
// registry as usual. The bundle sits beside dist/version.js, so it reads the version from the
// same package.json.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const cli = fileURLToPath(new URL('../packages/cli/', import.meta.url))
const pkg = JSON.parse(readFileSync(`${cli}package.json`, 'utf8'))
const external = Object.keys(pkg.dependencies ?? {})
if (external.some((name) => name.startsWith('@burrow/'))) {
  throw new Error('@burrow/* packages are on no registry: keep them in devDependencies, bundled')
}

await build({
  entryPoints: [`${cli}dist/bin/burrow.js`],
  outfile: `${cli}dist/burrow.bundle.js`,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  legalComments: 'none',
  logLevel: 'warning',
})
