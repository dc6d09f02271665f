/**
 * The text of `burrowd --help`: every command, flag and `BURROW_*` variable. Keep it in step
 * with `parse-operator-args.ts`, `config.ts` and docs/configuration.md.
 */

/** What `burrowd --help` prints. */
export const HELP_TEXT = `burrowd: the Burrow service (broker, public edge and app) and its operator commands.

Usage:
  burrowd serve                    run the service (the default when no command is given)
  burrowd migrate                  apply pending database migrations
  burrowd account create --email E --slug S [--plan free|pro|scale] [--password-stdin] [--json]
                                   create an account; prints {id, email, slug, plan} with --json
  burrowd tunnel create --account SLUG [--name N] [--subdomain SUB] [--json]
                       [--access oauth|token|public] [--allow-ip CIDR]...
                                   create a tunnel and its key (shown only once);
                                   prints {id, subdomain, public_url, key, access} with --json;
                                   agents sign in with OAuth unless --access says otherwise
  burrowd token create --account SLUG [--name N] [--json]
                                   create an API token for automation (shown only once), the
                                   same as one made in the dashboard; prints {id, token}
  burrowd crash-reports list [--limit N] [--json]
                                   the newest crash reports sent by burrow clients;
                                   prints {crash_reports: [...]} with --json
  burrowd usage set --tunnel ID [--tool-calls N] [--bandwidth-bytes N] [--json]
                                   set this month's live usage counters of a tunnel in the
                                   running service (Redis with BURROW_REDIS_URL), effective on
                                   the next request; stored for the next start when none runs
  burrowd --help | --version

Flags:
  --email E          account email (stored lower-cased; unique)
  --slug S           account slug: a-z, 0-9 and "-", 1-40 characters; public hosts end in --S
  --plan P           free (default), pro or scale
  --password-stdin   read the account's dashboard password from standard input (else it
                     has none until set by "Forgot password?")
  --account SLUG     the account that owns the new tunnel or token
  --name N           friendly tunnel name (also suggests the subdomain), or the token's name
  --subdomain SUB    tunnel subdomain (default: from --name, else random); unique per account
  --limit N          how many crash reports, newest first: 1-1000 (20)
  --tunnel ID        the tunnel whose counters to set (tun_...)
  --tool-calls N     this month's tool-call count to set
  --bandwidth-bytes N
                     this month's bandwidth count to set, in bytes
  --json             print exactly one JSON object on stdout
  -h, --help         print this help

Environment (an empty value counts as unset):
  BURROW_LISTEN            address to listen on, HOST:PORT or [IPv6]:PORT (127.0.0.1:7100)
  BURROW_ZONE              DNS zone of public hosts <subdomain>--<account>.<zone> (localhost)
  BURROW_SERVICE_HOST      host of the dashboard, API, OAuth and broker, as named in mail,
                           links and the dashboard's burrow command (the zone); a domain of
                           its own in production
  BURROW_PUBLIC_SCHEME     http or https in public URLs (http for *localhost zones, else https)
  BURROW_PUBLIC_PORT       port in public URLs (the listen port for *localhost zones, else none)
  BURROW_DATA_DIR          directory for burrowd's files (./.burrow)
  BURROW_DATABASE_URL      postgres://... or sqlite:<path> (SQLite at <data dir>/burrow.db)
  BURROW_DATABASE_TIMEOUT_SECS
                           seconds a PostgreSQL connection or query may take before the
                           request needing it gets 503 (15)
  BURROW_MAX_BODY_BYTES    largest public request body in bytes (4194304)
  BURROW_RESUME_GRACE_SECS seconds a dropped tunnel keeps its name and sessions (30)
  BURROW_QUEUE_WAIT_MS     milliseconds a request waits for a reconnecting tunnel (5000)
  BURROW_HEARTBEAT_SECS    seconds between tunnel pings (15)
  BURROW_MEMORY_RELEASE_SECS
                           seconds of quiet after which grown heap memory is given back to
                           the system, 0 for never (60)
  BURROW_LOG               error, warn, info, debug or trace (info)
  BURROW_CLIENT_LATEST_VERSION
                           newest burrow release, told to clients that check for updates
                           (burrowd's own version)
  BURROW_CLIENT_DOWNLOAD_URL
                           where users get that release, an http(s) URL (none)
  BURROW_REDIS_URL         redis://... shared by several nodes for live counters and
                           session places (none: kept in this process)
  BURROW_QUOTAS            on or off: enforce monthly quotas and the session cap (on)
  BURROW_SESSION_IDLE_SECS seconds an idle session still counts, unless a new one needs
                           its place (300)
  BURROW_SMTP_URL          smtp://[USER:PASSWORD@]HOST[:PORT] or smtps://... for password
                           resets and address checks (none: the dev outbox at /dev/outbox)
  BURROW_MAIL_FROM         From of that mail (Burrow <no-reply@ZONE>)
  BURROW_METER_SNAPSHOT_SECS
                           seconds between usage snapshots for the API's meters (60)
  BURROW_DNS_SERVERS       DNS servers that check custom domains, IP or IP:PORT, comma-
                           separated (none: the system's resolvers)
  BURROW_TRUSTED_PROXIES   proxies whose X-Forwarded-For is believed, IPs and CIDRs comma-
                           separated, or none (127.0.0.0/8,::1/128)
  BURROW_METRICS_TOKEN     bearer token for GET /metrics (none: loopback scrapers only)
  BURROW_NODE_URL          this node's URL as other nodes sharing its Redis reach it
                           (http://<listen address>)
  BURROW_WEBHOOKS_ALLOW_PRIVATE
                           1: outbound webhooks and OAuth client metadata fetches may reach
                           loopback and private addresses (0)
  BURROW_BILLING_PROVIDER  paddle or dev (paddle when BURROW_PADDLE_API_KEY is set, else dev:
                           a local checkout at /dev/paddle where no money moves)
  BURROW_PADDLE_API_KEY, BURROW_PADDLE_API_URL, BURROW_PADDLE_WEBHOOK_SECRETS,
  BURROW_PADDLE_CLIENT_TOKEN, BURROW_PADDLE_PRICE_PRO_MONTHLY, BURROW_PADDLE_PRICE_PRO_ANNUAL,
  BURROW_PADDLE_PRICE_SCALE_MONTHLY, BURROW_PADDLE_PRICE_SCALE_ANNUAL
                           Paddle Billing: API key and URL (https://api.paddle.com), webhook
                           secrets (comma-separated), Paddle.js client token, the four price ids

Every variable, with its details: docs/configuration.md.
`
