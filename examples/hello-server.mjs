#!/usr/bin/env node
// A small stdio MCP server bundled for `npm start`: three tools, a prompt and a resource, written
// with the official SDK. Run it behind a tunnel with: burrow up --stdio "node examples/hello-server.mjs"
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const server = new McpServer({ name: 'burrow-hello', version: '1.0.0' })

server.registerTool(
  'hello',
  {
    description: 'Say hello to someone',
    inputSchema: { name: z.string().describe('Who to greet') },
  },
  async ({ name }) => ({
    content: [{ type: 'text', text: `Hello, ${name}! This answer came through a Burrow tunnel.` }],
  }),
)

server.registerTool(
  'add',
  { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
)

server.registerTool(
  'server_time',
  { description: 'The current time on the machine running the server', inputSchema: {} },
  async () => ({ content: [{ type: 'text', text: new Date().toISOString() }] }),
)

server.registerPrompt(
  'greet',
  { description: 'A greeting prompt', argsSchema: { name: z.string() } },
  ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name} warmly.` } }],
  }),
)

server.registerResource(
  'readme',
  'hello://readme',
  { description: 'What this server is', mimeType: 'text/plain' },
  async (uri) => ({
    contents: [{ uri: uri.href, text: 'burrow-hello: the example server that ships with Burrow.' }],
  }),
)

await server.connect(new StdioServerTransport())
