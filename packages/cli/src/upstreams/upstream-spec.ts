/**
 * One upstream as `burrow up` will serve it: a local Streamable HTTP server or a stdio command,
 * from a flag, an upstreams file or a detected client configuration.
 */
import { printable } from '../printable.js'
import { shownUrl } from '../shown-url.js'

/** A local MCP server to expose. `name` is null only in single-upstream mode. */
export type UpstreamSpec =
  | { readonly kind: 'http'; readonly name: string | null; readonly url: string }
  | {
      readonly kind: 'stdio'
      readonly name: string | null
      /** The command line as the user wrote it (shell-style), also used for display. */
      readonly command: string
      /** Program and arguments already split (from a client's config file); skips parsing. */
      readonly argv?: readonly string[]
      /** Variables added to the child's environment (from a client's config file). */
      readonly env?: Readonly<Record<string, string>>
    }

/**
 * How an upstream is described to the user: its URL without credentials and with its query as
 * `?…` (`shownUrl`: what burrow up prints goes to a service's log), or `stdio: <command>`,
 * printable (it may come from a project's file: see printable.ts).
 */
export function describeUpstream(spec: UpstreamSpec): string {
  return printable(spec.kind === 'http' ? shownSpecUrl(spec.url) : `stdio: ${spec.command}`)
}

/** `url` as `shownUrl` writes it, or as given when it does not parse. */
function shownSpecUrl(url: string): string {
  try {
    return shownUrl(new URL(url))
  } catch {
    return url
  }
}
