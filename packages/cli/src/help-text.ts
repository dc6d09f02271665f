/**
 * `burrow --help` and `burrow up --help`. The README quotes these verbatim; keep them true.
 */

/** Top-level help. */
export const MAIN_HELP = `burrow: put a local MCP server on the internet through a Burrow tunnel

Usage: burrow [GLOBAL OPTIONS] <command> [OPTIONS]

Commands:
  up          Expose a local MCP server (HTTP or stdio) at the tunnel's public URL

Global options:
  --broker <URL>       WebSocket URL of the service        [env BURROW_BROKER, default ws://127.0.0.1:7100]
  --api-key <KEY>      Tunnel key (mtk_…)                   [env BURROW_API_KEY]
  -v, -vv, -vvv        More logging: debug (-v, -vv) or trace (-vvv); BURROW_LOG wins when set
  --no-update-check    Do not check for a newer release     [env BURROW_NO_UPDATE_CHECK=1]
  --no-telemetry       Send no crash reports                [env BURROW_NO_TELEMETRY=1]
  --version            Print the version and exit
  -h, --help           Print help and exit ("burrow up --help" for up)
`

/** Help for \`up\`. */
export const UP_HELP = `burrow up: expose a local MCP server through the tunnel

Usage: burrow [GLOBAL OPTIONS] up (--upstream <URL> | --stdio "<CMD>") [--name <NAME>]

Options:
  --upstream <URL>     Local Streamable HTTP MCP server, e.g. http://127.0.0.1:3000/mcp
  --stdio "<CMD>"      Spawn and bridge a stdio MCP server; shell-style quoting, $VARS expanded.
                       Restarted with backoff (500 ms → 10 s) if it exits.
  --name <NAME>        Friendly tunnel name; the client snippet entry becomes <NAME>-via-tunnel

Environment:
  BURROW_DRAIN_GRACE_SECS  Seconds in-flight requests get to finish on Ctrl-C/SIGTERM (default 10)

Prints the public URL and a client snippet once connected, reconnects by itself (1 s → 30 s
backoff) and exits 0 after draining on Ctrl-C or SIGTERM. Exit status 1: bad usage; 3: the
tunnel key was refused ("authentication failed"); 4: another client took over the tunnel.
`
