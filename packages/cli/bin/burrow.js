#!/usr/bin/env node
// The `burrow` command as npm links it: node_modules/.bin/burrow in a checkout (so `npx burrow`
// there runs this client, not a registry package of the same name), or the global bin of the
// installed package. npm links a bin only when its file exists at install time, before any
// build, so this launcher is committed rather than compiled. It runs the TypeScript build
// (dist/bin/) when there is one, else the single-file bundle, the only part of dist/ that the
// packed client (`npm pack`) ships.
import { existsSync } from 'node:fs'

const built = new URL('../dist/bin/burrow.js', import.meta.url)
const bundled = new URL('../dist/burrow.bundle.js', import.meta.url)

if (existsSync(built)) await import(built.href)
else if (existsSync(bundled)) await import(bundled.href)
else {
  process.stderr.write(
    'burrow: this checkout is not built yet; run "npm run build" at the root of the repository\n',
  )
  process.exitCode = 1
}
