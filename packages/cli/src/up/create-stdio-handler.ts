/**
 * The handler for `--stdio CMD`: the MCP front (a Streamable HTTP endpoint of our own) over one
 * supervised child process that all agent sessions share.
 */
import type { Logger } from '@burrow/protocol'
import { UsageError } from '../cli-errors.js'
import type { Env } from '../config.js'
import { McpFront } from '../front/mcp-front.js'
import { StdioBackend } from '../front/stdio-backend.js'
import type { RequestHandler } from '../relay/local-exchange.js'
import { parseCommand } from '../stdio/parse-command.js'
import { StdioSupervisor } from '../stdio/stdio-supervisor.js'

/** Start the child and serve it as a Streamable HTTP MCP endpoint. */
export function createStdioHandler(command: string, env: Env, logger: Logger): RequestHandler {
  let parsed
  try {
    parsed = parseCommand(command, env)
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const supervisor = new StdioSupervisor({
    command: parsed.command,
    args: parsed.args,
    displayCommand: command,
    label: 'stdio',
    logger,
  })
  return new McpFront({ backend: new StdioBackend({ supervisor, logger }), logger })
}
