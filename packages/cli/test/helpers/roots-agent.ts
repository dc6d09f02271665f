/**
 * An SDK agent (2025 Streamable HTTP client) that declares `roots` and answers `roots/list` with
 * the roots it is given, counting the requests it answered: the agents of the tests that check
 * whose roots reach a server shared between agents.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

/** A connected agent. */
export interface RootsAgent {
  readonly client: Client
  /** How many `roots/list` requests it answered. */
  asked(): number
  /** Call `tool` (with `args`) and return the text of its result. */
  call(tool: string, args?: Record<string, unknown>): Promise<string>
}

/** Connect to `url` as an agent whose roots are `uris`. */
export async function connectRootsAgent(url: URL, uris: readonly string[]): Promise<RootsAgent> {
  const client = new Client(
    { name: 'roots-agent', version: '1.0.0' },
    { capabilities: { roots: { listChanged: true } } },
  )
  let asked = 0
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    asked += 1
    return { roots: uris.map((uri) => ({ uri })) }
  })
  await client.connect(new StreamableHTTPClientTransport(url))
  return {
    client,
    asked: () => asked,
    async call(tool, args = {}) {
      const result = await client.callTool({ name: tool, arguments: args })
      const [first] = (result.content ?? []) as { type: string; text?: string }[]
      return first?.type === 'text' ? (first.text ?? '') : ''
    },
  }
}
