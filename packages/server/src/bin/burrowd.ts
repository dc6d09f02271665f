#!/usr/bin/env node
/**
 * The `burrowd` executable: parses the command line, loads the configuration and runs one
 * command. The one top-level catch lives here: a user error (bad flag or value, taken name,
 * unreachable database) prints `burrowd: <message>` and exits 1; anything else is a bug and
 * prints its stack. This is the only file that calls `process.exit`.
 */

import { readFileSync } from 'node:fs'
import { ConfigError } from '../config-error.js'
import { HELP_TEXT } from '../operator/help-text.js'
import { parseOperatorArgs } from '../operator/parse-operator-args.js'
import { UsageError } from '../operator/usage-error.js'
import { DatabaseUnavailableError } from '../store/database-unavailable-error.js'
import { StoreError } from '../store/store-error.js'

// Each command's code is loaded when it runs: `--help` need not load the store, nor `account
// create` the Redis client that `usage set` uses.
async function main(argv: readonly string[]): Promise<void> {
  const command = parseOperatorArgs(argv)
  if (command.command === 'help') return print(HELP_TEXT)
  if (command.command === 'version') return print(`burrowd ${packageVersion()}\n`)

  const { loadConfig } = await import('../config.js')
  const config = loadConfig()
  switch (command.command) {
    case 'serve': {
      const { serve } = await import('../serve.js')
      await serve(config)
      return
    }
    case 'migrate': {
      const { migrate } = await import('../operator/migrate.js')
      return print(await migrate(config))
    }
    case 'account create': {
      const { accountCreate } = await import('../operator/account-create.js')
      return print(await accountCreate(command, config))
    }
    case 'tunnel create': {
      const { tunnelCreate } = await import('../operator/tunnel-create.js')
      return print(await tunnelCreate(command, config))
    }
    case 'token create': {
      const { tokenCreate } = await import('../operator/token-create.js')
      return print(await tokenCreate(command, config))
    }
    case 'crash-reports list': {
      const { crashReportsList } = await import('../operator/crash-reports-list.js')
      return print(await crashReportsList(command, config))
    }
    case 'usage set': {
      const { usageSet } = await import('../operator/usage-set.js')
      return print(await usageSet(command, config))
    }
  }
}

function print(text: string): void {
  process.stdout.write(text)
}

function packageVersion(): string {
  // dist/bin/burrowd.js and src/bin/burrowd.ts both sit two levels below package.json.
  const file = new URL('../../package.json', import.meta.url)
  const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }
  return typeof version === 'string' ? version : 'unknown'
}

function isUserError(error: unknown): error is Error {
  return (
    error instanceof UsageError ||
    error instanceof ConfigError ||
    error instanceof StoreError ||
    error instanceof DatabaseUnavailableError
  )
}

/** What to tell the operator when the listening address cannot be had, or null. */
function listenProblemOf(error: unknown): string | null {
  const { code, address, port } = error as { code?: unknown; address?: unknown; port?: unknown }
  const where = typeof address === 'string' ? `${address}:${String(port)}` : 'the address'
  if (code === 'EADDRINUSE') {
    return `${where} is in use (another burrowd?); stop it, or listen elsewhere with BURROW_LISTEN`
  }
  if (code === 'EACCES') {
    return `not allowed to listen on ${where}; choose a port above 1023 with BURROW_LISTEN`
  }
  if (code === 'EADDRNOTAVAIL') {
    return `${where} is not an address of this machine; set BURROW_LISTEN to one`
  }
  return null
}

main(process.argv.slice(2)).then(
  // Exit naturally so stdout is flushed; every command closes what it opened.
  () => {},
  (error: unknown) => {
    const listenProblem = listenProblemOf(error)
    if (listenProblem !== null) {
      process.stderr.write(`burrowd: ${listenProblem}\n`)
    } else if (isUserError(error)) {
      process.stderr.write(`burrowd: ${error.message}\n`)
    } else {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error)
      process.stderr.write(`burrowd: internal error, please report it:\n${detail}\n`)
    }
    process.exit(1)
  },
)
