/**
 * `burrow --help`, `burrow up --help` and `burrow detect --help`. The README quotes these
 * verbatim; keep them true.
 */

/** Top-level help. */
export const MAIN_HELP = `burrow: put a local MCP server on the internet through a Burrow tunnel

Usage: burrow [GLOBAL OPTIONS] <command> [OPTIONS]

Commands:
  up          Expose local MCP servers (HTTP or stdio, one or several) at the tunnel's public URL
  detect      List the MCP servers configured in local AI clients, exposing nothing

Global options:
  --broker <URL>       Service origin, ws(s)://HOST[:PORT] or http(s)://…, no path [env BURROW_BROKER, default ws://127.0.0.1:7100]
  --api-key <KEY>      Tunnel key (mtk_…)                   [env BURROW_API_KEY]
  -v, -vv, -vvv        More logging: debug (-v, -vv) or trace (-vvv); BURROW_LOG wins when set
  --no-update-check    Do not check for a newer release     [env BURROW_NO_UPDATE_CHECK=1]
  --no-telemetry       Send no crash reports                [env BURROW_NO_TELEMETRY=1]
  --version            Print the version and exit
  -h, --help           Print help and exit ("burrow up --help", "burrow detect --help")
`

/** Help for \`up\`. */
export const UP_HELP = `burrow up: expose local MCP servers through the tunnel

Usage: burrow [GLOBAL OPTIONS] up [UPSTREAMS] [OPTIONS]

Upstreams (none: auto-detect the servers configured in local AI clients):
  --upstream <URL>         Local Streamable HTTP MCP server, e.g. http://127.0.0.1:3000/mcp
  --stdio "<CMD>"          Spawn and bridge a stdio MCP server; shell-style quoting, $VARS expanded.
                           Restarted with backoff (500 ms → 10 s) if it exits.
                           Both repeatable: with two or more, each is name=value and the tools
                           and prompts of all are served as <name>__<item> (aggregator mode).
  --upstreams-file <PATH>  TOML layout: [upstreams.<name>] with http = "URL" or stdio = "CMD"
  --config <PATH>          Auto-detect from this client config file only (repeatable)

Options:
  --name <NAME>            Friendly tunnel name; the client snippet entry becomes <NAME>-via-tunnel
  --metrics-addr <ADDR>    Serve /metrics and /healthz at HOST:PORT   [env BURROW_METRICS_ADDR]
  --inspect                Local inspector at 127.0.0.1:4040 (a free port if taken)
  --inspect-addr <ADDR>    Inspector address; implies --inspect       [env BURROW_INSPECT_ADDR]
  --inspect-admin          Inspector Config tab (edit, apply, save upstreams); implies --inspect
                                                                      [env BURROW_INSPECT_ADMIN=1]

Environment:
  BURROW_INSPECT_TOKEN     Fixed inspector token instead of a fresh random one
  BURROW_DRAIN_GRACE_SECS  Seconds in-flight requests get to finish on Ctrl-C/SIGTERM, or when
                           burrowd restarts or another client takes over (default 10)
  BURROW_NO_RESPAWN=1      Run up in this process, not in a second one with its heap flags

Prints the public URL, how agents get in (OAuth sign-in or an agent token, as the tunnel's access
mode on the dashboard's Access tab says; told again when it changes) and a client snippet once
connected, reconnects by itself (1 s → 30 s backoff) and exits 0 after draining on Ctrl-C or
SIGTERM. Exit status 1: bad usage, or a stdio command that does not exist; 3: the tunnel key was
refused ("authentication failed"); 4: another client took over the tunnel. Except on Windows and
in the single executable, up runs in a second Node process started with
--initial-old-space-size=64 (far fewer full collections); the first passes on the signals sent to
it.
`

/** Help for \`detect\`. */
export const DETECT_HELP = `burrow detect: list the MCP servers configured in local AI clients

Usage: burrow [GLOBAL OPTIONS] detect [--config <PATH>]... [--json]

Reads the configuration of Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI and
Codex (plus .cursor/mcp.json and .vscode/mcp.json in the current directory). Nothing is exposed.

Options:
  --config <PATH>   Read this file instead of the well-known locations (repeatable)
  --json            Machine-readable output (see docs/detect.md)

A file that cannot be parsed is reported as a warning and skipped.
`
