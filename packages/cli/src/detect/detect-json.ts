/**
 * The document `burrow detect --json` prints, described in docs/detect.md. Field names
 * are snake_case like the rest of burrow's JSON; entries keep the order of `detect`'s list.
 */
import type { DetectionResult } from './detect-servers.js'
import type { ClientId } from './detected-server.js'

/** One server in `detect --json`. */
export interface DetectJsonServer {
  /** The name as found in the client's file. */
  readonly name: string
  /** The upstream name `burrow up` would give it (docs/detect.md), unique in the document. */
  readonly sanitized_name: string
  /** The client whose file declared it first. */
  readonly client: ClientId
  /** Every client that declares this same server. */
  readonly clients: readonly ClientId[]
  /** The file it was read from first. */
  readonly source: string
  /** Every file that declares it. */
  readonly sources: readonly string[]
  readonly transport:
    | {
        readonly type: 'stdio'
        readonly command: string
        readonly args: readonly string[]
        readonly env: Readonly<Record<string, string>>
      }
    | { readonly type: 'http'; readonly url: string }
  /** Remarks such as unexpanded placeholders; may be empty. */
  readonly notes: readonly string[]
}

/** The whole `detect --json` document. */
export interface DetectJson {
  readonly servers: readonly DetectJsonServer[]
  /** Files or entries that were skipped, one sentence each. */
  readonly warnings: readonly string[]
}

/** Build the `detect --json` document for a detection. */
export function detectJson(result: DetectionResult): DetectJson {
  return {
    servers: result.entries.map((e) => ({
      name: e.name,
      sanitized_name: e.sanitizedName,
      client: e.client,
      clients: e.clients,
      source: e.source,
      sources: e.sources,
      transport:
        e.transport.type === 'http'
          ? { type: 'http', url: e.transport.url }
          : {
              type: 'stdio',
              command: e.transport.command,
              args: e.transport.args,
              env: e.transport.env,
            },
      notes: e.notes,
    })),
    warnings: result.warnings,
  }
}
