/**
 * The built-in secret detectors redaction uses when `detect_secrets` is on: well-known shapes of
 * cloud and API keys, tokens and private keys, each named for its mask (`[REDACTED:github_token]`).
 * Written for RE2 (linear time), joined into one pattern with a named group per detector so a
 * string is scanned once.
 */

/** A detector: the mask's name and its RE2 pattern. */
export interface SecretDetector {
  readonly name: string
  readonly pattern: string
}

/** The detectors, most specific first (the first alternative that matches wins). */
export const SECRET_DETECTORS: readonly SecretDetector[] = [
  {
    name: 'private_key',
    pattern: '-----BEGIN [A-Z ]*PRIVATE KEY-----(?s:.*?)-----END [A-Z ]*PRIVATE KEY-----',
  },
  { name: 'aws_access_key', pattern: '\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b' },
  {
    name: 'github_token',
    pattern: '\\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})',
  },
  { name: 'stripe_key', pattern: '\\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}' },
  { name: 'slack_token', pattern: '\\bxox[abprs]-[A-Za-z0-9-]{10,}' },
  { name: 'google_api_key', pattern: '\\bAIza[0-9A-Za-z_-]{35}' },
  { name: 'burrow_key', pattern: '\\b(?:mtk|btk|atk)_[A-Za-z0-9_-]{16,}' },
  { name: 'api_key', pattern: '\\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}' },
  { name: 'jwt', pattern: '\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}' },
  { name: 'bearer_token', pattern: '(?i:\\bbearer\\s+)[A-Za-z0-9._~+/=-]{16,}' },
]
