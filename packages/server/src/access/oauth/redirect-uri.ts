/**
 * Which redirect URIs a client may register: absolute, printable ASCII, no user or password, no
 * fragment, `https`, `http` on a loopback host only (RFC 8252 native apps), or a private-use
 * scheme such as `cursor://anysphere.cursor-mcp/oauth/callback`; never a scheme that runs code or
 * reads files.
 */
import { OauthError } from './oauth-error.js'

const REFUSED_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'blob:',
  'about:',
  'view-source:',
  'jar:',
  'filesystem:',
])
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

/** Most redirect URIs one client registers, and the longest one. */
export const MAX_REDIRECT_URIS = 10
export const MAX_REDIRECT_URI_CHARS = 2_000

/** `value` as a list of acceptable redirect URIs, or `OauthError` `invalid_redirect_uri`. */
export function parseRedirectUris(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_REDIRECT_URIS) {
    throw new OauthError(
      'invalid_redirect_uri',
      `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs`,
    )
  }
  return value.map((uri) => {
    if (typeof uri !== 'string' || uri.length > MAX_REDIRECT_URI_CHARS) {
      throw new OauthError(
        'invalid_redirect_uri',
        'each redirect URI must be a string of reasonable length',
      )
    }
    // The consent page shows the URI as registered: spaces, controls or characters beyond ASCII
    // (bidirectional controls among them) could make it read as another address.
    if (!/^[\x21-\x7e]+$/.test(uri)) {
      throw new OauthError(
        'invalid_redirect_uri',
        'a redirect URI must be written in printable ASCII (percent-encode the rest)',
      )
    }
    // `https://evil.example\@claude.ai/cb` reads as a user at claude.ai; a URL parser reads the
    // backslash as `/` and goes to evil.example.
    if (uri.includes('\\')) {
      throw new OauthError(
        'invalid_redirect_uri',
        'a redirect URI may not hold a backslash (browsers read it as "/")',
      )
    }
    let url: URL
    try {
      url = new URL(uri)
    } catch {
      throw new OauthError('invalid_redirect_uri', `${uri.slice(0, 100)} is not an absolute URI`)
    }
    if (url.hash !== '' || uri.includes('#')) {
      throw new OauthError('invalid_redirect_uri', 'a redirect URI may not have a fragment')
    }
    if (url.username !== '' || url.password !== '') {
      // `https://claude.ai@evil.example/` reads as claude.ai and goes to evil.example.
      throw new OauthError('invalid_redirect_uri', 'a redirect URI may not hold a user or password')
    }
    if (REFUSED_SCHEMES.has(url.protocol)) {
      throw new OauthError('invalid_redirect_uri', `${url.protocol} redirect URIs are not allowed`)
    }
    if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) {
      throw new OauthError(
        'invalid_redirect_uri',
        'http redirect URIs must point at this machine (localhost, 127.0.0.1, [::1]); use https',
      )
    }
    return uri
  })
}

/** The CSP `form-action` source that lets the consent form's redirect reach `uri`. */
export function formActionSource(uri: string): string {
  const url = new URL(uri)
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol
}
