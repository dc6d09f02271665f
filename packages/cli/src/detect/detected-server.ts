/**
 * What auto-detection finds (docs/detect.md): an MCP server configured in a local client, as a
 * detector reads it (`FoundServer`) and as `detect` and `up` use it once names are sanitised and
 * the same server seen in several clients is merged (`DetectedServer`).
 */

/** The clients whose configuration is scanned; `unknown` is a `--config` file of no known client. */
export const CLIENT_LABELS = {
  'claude-desktop': 'Claude Desktop',
  'claude-code': 'Claude Code',
  cursor: 'Cursor',
  vscode: 'VS Code',
  windsurf: 'Windsurf',
  'gemini-cli': 'Gemini CLI',
  codex: 'Codex',
  unknown: 'Other config file',
} as const

/** Identifier of a client, as printed in `detect --json` (`"client"`). */
export type ClientId = keyof typeof CLIENT_LABELS

/** How to reach a server: a command to spawn, or a Streamable HTTP URL. */
export type DetectedTransport =
  | {
      readonly type: 'stdio'
      readonly command: string
      readonly args: readonly string[]
      /** Variables the client adds to the child's environment, values as written (unexpanded). */
      readonly env: Readonly<Record<string, string>>
    }
  | { readonly type: 'http'; readonly url: string }

/** One server entry exactly as one client's file declares it. */
export interface FoundServer {
  /** The entry's key, as found. */
  readonly name: string
  readonly client: ClientId
  /** The file it was read from. */
  readonly source: string
  readonly transport: DetectedTransport
  /** Things the user should know, e.g. a `${input:…}` placeholder that burrow passes unexpanded. */
  readonly notes: readonly string[]
}

/** A found server after merging and naming: what `detect` lists and `up` can expose. */
export interface DetectedServer extends FoundServer {
  /** Upstream name (`sanitize-name.ts`), unique among the entries of one detection. */
  readonly sanitizedName: string
  /** Every client that configures this same server (same transport), `client` first. */
  readonly clients: readonly ClientId[]
  /** Every file that declares it, `source` first. */
  readonly sources: readonly string[]
}
