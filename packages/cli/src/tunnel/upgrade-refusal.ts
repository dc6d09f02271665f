/**
 * The broker's refusal of a tunnel client's upgrade, read from its HTTP answer: a key refused
 * (401/403), or anything else with how long to wait (429 `Retry-After`), and the reason the
 * refusal envelope gives (docs/protocol.md).
 */
import type { IncomingMessage } from 'node:http'
import { isBodyProblem, isRecord, parseJsonRpcText } from '@burrow/protocol'

/** What the client does about a refused upgrade. */
export interface UpgradeRefusal {
  /** The key was refused: the client stops. */
  readonly auth: boolean
  /** The envelope's reason, or the status. */
  readonly detail: string
  /** How long the broker asked the client to wait (at most 300 s); 0 when it did not say. */
  readonly retryAfterMs: number
}

/** Most of the answer's body read for its reason. */
const MAX_BODY_CHARS = 2000

/** Read the broker's answer `res` to a refused upgrade. */
export function readUpgradeRefusal(res: IncomingMessage): Promise<UpgradeRefusal> {
  const status = res.statusCode ?? 0
  let body = ''
  res.setEncoding('utf8')
  res.on('data', (c: string) => {
    if (body.length < MAX_BODY_CHARS) body += c.slice(0, MAX_BODY_CHARS - body.length)
  })
  return new Promise((resolve) => {
    res.on('end', () => {
      if (status === 401 || status === 403) {
        resolve({ auth: true, detail: reasonOf(body) ?? `HTTP ${status}`, retryAfterMs: 0 })
        return
      }
      const retryAfter = Number(res.headers['retry-after'])
      resolve({
        auth: false,
        detail: reasonOf(body) ?? `broker answered HTTP ${status}`,
        retryAfterMs:
          Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 300) * 1000 : 0,
      })
    })
  })
}

/** The `reason` of the refusal envelope the broker answered the upgrade with. */
function reasonOf(body: string): string | null {
  const read = parseJsonRpcText(body)
  const value = isBodyProblem(read) || read.batch ? null : read.messages[0]!.value
  const error = isRecord(value) ? value.error : null
  const data = isRecord(error) ? error.data : null
  return isRecord(data) && typeof data.reason === 'string' ? data.reason : null
}
