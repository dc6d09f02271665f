// Agents of both eras for end-to-end tests, behind one small interface: the v2 SDK client pinned
// to 2026-07-28 or negotiating (`auto`), and the v1 SDK client (2025 revisions only). Each can
// list tools, call one, call one with progress, and answers elicitation with a fixed name,
// sampling with a fixed message, and roots with one fixed root.
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { publicFetch } from './public-fetch.js'

/** Which agent. */
export type AgentKind = 'v2-pinned' | 'v2-auto' | 'v1'

/** The name every agent gives when elicited. */
export const ELICITED_NAME = 'Ada'
/** What every agent answers when a server asks it to sample. */
export const SAMPLED_TEXT = 'sampled by the e2e agent'
/** The one root every agent lists. */
export const ROOT_NAME = 'e2e workspace'
const ROOTS = { roots: [{ uri: 'file:///srv/e2e-workspace', name: ROOT_NAME }] }
const SAMPLED = {
  role: 'assistant' as const,
  content: { type: 'text' as const, text: SAMPLED_TEXT },
  model: 'e2e-model',
}

/** What a test does with an agent. */
export interface EraAgent {
  readonly kind: AgentKind
  /** 'modern' or 'legacy': the era the connection landed on. */
  readonly era: string
  /** How many elicitation requests the agent answered. */
  readonly elicited: () => number
  /** How many sampling and roots requests the agent answered. */
  readonly sampled: () => number
  readonly rootsListed: () => number
  listTools(): Promise<{ names: string[]; nextCursor: string | undefined }>
  /** The text of the result's content, joined. */
  call(name: string, args?: Record<string, unknown>): Promise<string>
  /** Call with a progress token; the text and the progress values seen. */
  callWithProgress(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ text: string; progress: number[] }>
  close(): Promise<void>
}

const CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} }

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? []
  return content.map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type}]`)).join('\n')
}

/** Connect an agent of `kind` to the public MCP URL `url`. */
export async function connectEraAgent(kind: AgentKind, url: string): Promise<EraAgent> {
  let elicited = 0
  let sampled = 0
  let rootsListed = 0
  const answer = () => {
    elicited += 1
    return { action: 'accept' as const, content: { name: ELICITED_NAME } }
  }
  const sample = () => {
    sampled += 1
    return SAMPLED
  }
  const roots = () => {
    rootsListed += 1
    return ROOTS
  }
  const counts = { sampled: () => sampled, rootsListed: () => rootsListed }
  if (kind === 'v1') {
    const client = new V1Client(
      { name: 'e2e-v1', version: '1.0.0' },
      { capabilities: CAPABILITIES },
    )
    client.setRequestHandler(ElicitRequestSchema, async () => answer())
    client.setRequestHandler(CreateMessageRequestSchema, async () => sample())
    client.setRequestHandler(ListRootsRequestSchema, async () => roots())
    await client.connect(new V1Transport(new URL(url), { fetch: publicFetch }))
    return {
      kind,
      era: 'legacy',
      elicited: () => elicited,
      ...counts,
      async listTools() {
        const page = await client.listTools()
        return { names: page.tools.map((t) => t.name), nextCursor: page.nextCursor }
      },
      call: async (name, args = {}) => textOf(await client.callTool({ name, arguments: args })),
      async callWithProgress(name, args) {
        const progress: number[] = []
        const result = await client.callTool({ name, arguments: args }, undefined, {
          onprogress: (p) => progress.push(p.progress),
        })
        return { text: textOf(result), progress }
      },
      close: () => client.close(),
    }
  }
  const versionNegotiation =
    kind === 'v2-pinned' ? { mode: { pin: '2026-07-28' } } : ({ mode: 'auto' } as const)
  const client = new V2Client(
    { name: `e2e-${kind}`, version: '1.0.0' },
    { versionNegotiation, capabilities: CAPABILITIES },
  )
  client.setRequestHandler('elicitation/create', async () => answer())
  client.setRequestHandler('sampling/createMessage', async () => sample())
  client.setRequestHandler('roots/list', async () => roots())
  await client.connect(new V2Transport(new URL(url), { fetch: publicFetch }))
  return {
    kind,
    era: client.getProtocolEra() ?? 'none',
    elicited: () => elicited,
    ...counts,
    async listTools() {
      const page = await client.listTools()
      return { names: page.tools.map((t) => t.name), nextCursor: page.nextCursor }
    },
    call: async (name, args = {}) => textOf(await client.callTool({ name, arguments: args })),
    async callWithProgress(name, args) {
      const progress: number[] = []
      const result = await client.callTool(
        { name, arguments: args },
        {
          // The v2 SDK reports its own input_required rounds as progress too; keep the server's.
          onprogress: (p) => {
            if (!String(p.message ?? '').startsWith('Fulfilling input required')) {
              progress.push(p.progress)
            }
          },
        },
      )
      return { text: textOf(result), progress }
    },
    close: () => client.close(),
  }
}
