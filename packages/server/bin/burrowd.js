#!/usr/bin/env node
// The `burrowd` command as npm links it (node_modules/.bin/burrowd, so `npx burrowd` runs it in a
// checkout). npm links a bin only when its file exists at install time, before any build, so this
// launcher is committed rather than compiled; it runs the TypeScript build in dist/.
import { existsSync } from 'node:fs'

const built = new URL('../dist/bin/burrowd.js', import.meta.url)

if (existsSync(built)) await import(built.href)
else {
  process.stderr.write(
    'burrowd: this checkout is not built yet; run "npm run build" at the root of the repository\n',
  )
  process.exitCode = 1
}
