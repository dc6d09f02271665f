/**
 * What a request's head says about how its body is written, where it differs from how the edge
 * reads it. The edge reads a POST body as UTF-8 JSON, sent as it is; the local server may believe
 * the head instead. A body it would inflate (`Content-Encoding`) or decode in another charset
 * could carry calls the policy never saw: `express.json()`, which the v1 SDK's
 * `createMcpExpressApp` uses, decodes any `utf-*` charset, and in UTF-7 `+AGQ-elete_file` reads
 * `delete_file`. Such a body is refused, not forwarded.
 */

/** Why the edge will not forward a body sent with raw head `rawHeaders`, or null. */
export function bodyLabelProblem(rawHeaders: readonly string[]): string | null {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase()
    const value = rawHeaders[i + 1]!
    if (name === 'content-encoding') {
      const coding = value.trim().toLowerCase()
      if (coding !== '' && coding !== 'identity') {
        return `the request body is sent with content-encoding ${coding.slice(0, 40)}; send it uncompressed`
      }
    } else if (name === 'content-type') {
      const charset = foreignCharset(value)
      if (charset !== null) {
        return `the request body is labelled charset=${charset.slice(0, 40)}; JSON-RPC bodies are read as UTF-8, so send it in UTF-8 (or name no charset)`
      }
    }
  }
  return null
}

/**
 * A `charset` parameter of content type `value` other than UTF-8, as written, or null. Every
 * parameter named `charset` counts (parsers differ on which of several they take), and one whose
 * value is not plainly `utf-8` or `utf8` (quoted or not, in any case) is foreign: a parameter a
 * parser would read differently is refused rather than guessed at.
 */
function foreignCharset(value: string): string | null {
  const params = value.split(';').slice(1)
  for (const param of params) {
    const eq = param.indexOf('=')
    const key = (eq === -1 ? param : param.slice(0, eq)).trim().toLowerCase()
    if (key !== 'charset') continue
    const raw = eq === -1 ? '' : param.slice(eq + 1).trim()
    const unquoted =
      raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw
    const charset = unquoted.toLowerCase()
    if (charset !== 'utf-8' && charset !== 'utf8') return raw
  }
  return null
}
