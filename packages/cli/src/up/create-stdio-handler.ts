/**
 * The handler for `--stdio CMD`: the MCP front over one supervised child process.
 */
import type { Logger } from '@burrow/protocol'
import type { RequestHandler } from '../relay/local-exchange.js'

/** Start the child and serve it as a Streamable HTTP MCP endpoint. */
export function createStdioHandler(_command: string, _log: Logger): RequestHandler {
  throw new Error('stdio mode: being wired to the MCP front')
}
