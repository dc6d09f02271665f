/**
 * VS Code (and VS Code Insiders): the user `mcp.json` in the profile folder (`<appData>/Code/User`,
 * `<appData>/Code - Insiders/User`), its predecessor in that folder's `settings.json` under
 * `"mcp": {"servers": …}` (before 1.102), and the workspace's `.vscode/mcp.json`. Servers under
 * `servers` as `{type: "stdio", command, args, env}` or `{type: "http", url}`; values may refer to
 * prompted `inputs` as `${input:<id>}`, which are kept as written and explained in a note.
 */
import { join } from 'node:path'
import type { FoundServer } from '../detected-server.js'
import { scanFiles, type Detector } from '../detector.js'
import { isRecord, placeholdersIn, serversFromTable } from '../server-table.js'

const PRODUCTS = ['Code', 'Code - Insiders'] as const

/** Detector for VS Code. */
export const vscodeDetector: Detector = {
  client: 'vscode',
  paths: (ctx) => [
    ...PRODUCTS.flatMap((product) => [
      join(ctx.appData, product, 'User', 'settings.json'),
      join(ctx.appData, product, 'User', 'mcp.json'),
    ]),
    join(ctx.cwd, '.vscode', 'mcp.json'),
  ],
  scan: (env, read) =>
    scanFiles(vscodeDetector.paths(env.ctx), 'json', read, (doc, source) =>
      vscodeDetector.parse(doc, source, env),
    ),
  parse: (doc, source, { warn }) => {
    if (!isRecord(doc)) return []
    // mcp.json has `servers` and `inputs` at the top; settings.json nests both under "mcp".
    const root = doc.servers === undefined && isRecord(doc.mcp) ? doc.mcp : doc
    const found = serversFromTable(root.servers, { client: 'vscode', source, warn })
    return found.map((server) => withInputNotes(server, root.inputs))
  },
}

/** Add a note for each `${input:id}` the server uses, with the input's description. */
function withInputNotes(server: FoundServer, inputs: unknown): FoundServer {
  const t = server.transport
  const texts = t.type === 'http' ? [t.url] : [t.command, ...t.args, ...Object.values(t.env)]
  const ids = new Set(
    texts.flatMap((text) =>
      placeholdersIn(text, (inner) => inner.startsWith('input:')).map((p) => p.slice(8, -1)),
    ),
  )
  if (ids.size === 0) return server
  // The first input declared with each id, looked up once per id (not a search per id).
  const declared = new Map<unknown, Record<string, unknown>>()
  if (Array.isArray(inputs))
    for (const input of inputs.filter(isRecord))
      if (!declared.has(input.id)) declared.set(input.id, input)
  const notes = [...ids].map((id) => {
    const input = declared.get(id)
    if (input === undefined) return `\${input:${id}} refers to an input the file does not declare`
    const about = typeof input.description === 'string' ? ` ("${input.description}")` : ''
    const secret = input.password === true ? ', a secret' : ''
    return `\${input:${id}} is a value VS Code asks for when it starts the server${about}${secret}; set it yourself for burrow`
  })
  return { ...server, notes: [...server.notes, ...notes] }
}
