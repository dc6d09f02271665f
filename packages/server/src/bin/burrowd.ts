#!/usr/bin/env node
/**
 * The `burrowd` executable: parses the command line, loads the configuration and runs one
 * command. The one top-level catch lives here: a user error (bad flag or value, taken name,
 * unreachable database) prints `burrowd: <message>` and exits 1; anything else is a bug and
 * prints its stack. This is the only file that calls `process.exit`.
 */

import { readFileSync } from 'node:fs'
import { loadConfig, ConfigError } from '../config.js'
import { accountCreate } from '../operator/account-create.js'
import { crashReportsList } from '../operator/crash-reports-list.js'
import { HELP_TEXT } from '../operator/help-text.js'
import { migrate } from '../operator/migrate.js'
import { parseOperatorArgs } from '../operator/parse-operator-args.js'
import { tokenCreate } from '../operator/token-create.js'
import { tunnelCreate } from '../operator/tunnel-create.js'
import { UsageError } from '../operator/usage-error.js'
import { usageSet } from '../operator/usage-set.js'
import { DatabaseUnavailableError } from '../store/database-unavailable-error.js'
import { StoreError } from '../store/store-error.js'

async function main(argv: readonly string[]): Promise<void> {
  const command = parseOperatorArgs(argv)
  if (command.command === 'help') return print(HELP_TEXT)
  if (command.command === 'version') return print(`burrowd ${packageVersion()}\n`)

  const config = loadConfig()
  switch (command.command) {
    case 'serve': {
      const { serve } = await import('../serve.js')
      await serve(config)
      return
    }
    case 'migrate':
      return print(await migrate(config))
    case 'account create':
      return print(await accountCreate(command, config))
    case 'tunnel create':
      return print(await tunnelCreate(command, config))
    case 'token create':
      return print(await tokenCreate(command, config))
    case 'crash-reports list':
      return print(await crashReportsList(command, config))
    case 'usage set':
      return print(await usageSet(command, config))
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
