/**
 * `--broker` (or `BURROW_BROKER`): where `burrow` finds the Burrow service, as the WebSocket
 * origin it connects to. burrowd takes tunnel clients at its service host whatever the path
 * (except its nodes' own paths), and the update check and crash reports go to `/api/…` at that
 * host, so a path, a query or a fragment would be ignored, or worse: a path is refused, not
 * dropped in silence (docs/decisions.md, "--broker is an origin"). A user name or password in
 * the URL is refused too, and not printed: the tunnel key goes in `--api-key`.
 */
import { UsageError } from './cli-errors.js'
import { cutText } from './cut-text.js'
import { printable } from './printable.js'

/** What `--broker` accepts, as every refusal says it. */
const ACCEPTED =
  'use ws://HOST[:PORT] or wss://HOST[:PORT] (http:// and https:// work too), no path, query or fragment'

/** Most characters of a refused value echoed in its message. */
const MAX_SHOWN = 200

const WEBSOCKET_SCHEMES: Readonly<Record<string, string>> = {
  'ws:': 'ws:',
  'wss:': 'wss:',
  'http:': 'ws:',
  'https:': 'wss:',
}

/**
 * The service's WebSocket origin, `ws://host:port` or `wss://host[:port]`, from `value`: an
 * http:// or https:// address (as the dashboard's own URL is written) means the same host over
 * ws:// or wss://. Throws a UsageError naming the flag and what it accepts for anything else.
 */
export function brokerUrl(value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw refused(value, 'is not a URL')
  }
  const scheme = WEBSOCKET_SCHEMES[url.protocol]
  if (scheme === undefined)
    throw refused(value, 'must start with ws://, wss://, http:// or https://')
  if (url.username !== '' || url.password !== '') {
    throw refused(
      value,
      'holds a user name or password, which burrowd does not read (the tunnel key goes in --api-key / BURROW_API_KEY)',
    )
  }
  if (url.pathname !== '/' && url.pathname !== '') {
    throw refused(
      value,
      `has a path (${shown(url.pathname)}); burrowd takes tunnel clients at its service host's root`,
    )
  }
  // `new URL` keeps an empty `?` or `#` out of search and hash: the value itself is checked.
  if (url.search !== '' || value.includes('?')) throw refused(value, 'has a query')
  if (url.hash !== '' || value.includes('#')) throw refused(value, 'has a fragment')
  return `${scheme}//${url.host}`
}

/** The refusal of `value`: what is wrong, what is accepted, where it was given. */
function refused(value: string, problem: string): UsageError {
  return new UsageError(
    `--broker "${shown(value)}" ${problem}; ${ACCEPTED} (check --broker / BURROW_BROKER)`,
  )
}

/**
 * Everything before a value's last `@` (its credentials), but one of the accepted schemes and the
 * slashes after it: the URL parser reads `wss:user:key@host`, `wss:/…` and `wss:\\…` as `wss://`,
 * so credentials are not only found after `//`.
 */
const CREDENTIALS = /^((?:wss?|https?):[/\\]*)?[\s\S]*@/i

/** `value` as a message may echo it: no credentials, no terminal controls, not too long. */
function shown(value: string): string {
  const withoutCredentials = value.replace(CREDENTIALS, '$1…@')
  return printable(cutText(withoutCredentials, MAX_SHOWN))
}
