/**
 * The ids a refusal answers, for a refusal made before anything read the request's body (burrowd
 * starting; a handler that failed before it got to the body, waiting on a stalled database): up
 * to `REFUSAL_BODY_READ_BYTES` of the body are read for them, so that the agent's SDK can match
 * the error to its call, as it can every other refusal's. A larger body is read and thrown away,
 * with no id: no more than that is held per request.
 */
import type { IncomingMessage } from 'node:http'
import { ByteBlocks, refusalIdsOf, type RefusedId } from '@burrow/protocol'

/** The most of a body read for the ids its refusal answers; past it, the id is null. */
export const REFUSAL_BODY_READ_BYTES = 64 * 1024

/**
 * Read the body of `req` for its ids and give them to `send` once known: at the body's end, or
 * null past the bound (the rest is then read and thrown away), or at once when something else
 * has started reading it. The refusal should be ended only after the body (`endAfter`): an agent
 * still sending would see a reset instead. `failed` is called when the body fails to arrive.
 */
export function idsOfUnreadBody(
  req: IncomingMessage,
  send: (id: RefusedId | RefusedId[]) => void,
  failed: () => void,
): void {
  if (req.readableFlowing !== null || req.readableEnded) {
    send(null)
    return
  }
  let sent = false
  const once = (id: RefusedId | RefusedId[]) => {
    if (sent) return
    sent = true
    send(id)
  }
  // Copied into blocks: node gives a chunked body one Buffer per chunk, and a body sent one byte
  // per chunk, kept as it came, held some 200 bytes of memory per byte.
  let body: ByteBlocks | null = new ByteBlocks()
  req.on('data', (chunk: Buffer) => {
    if (body === null) return
    if (body.length + chunk.length > REFUSAL_BODY_READ_BYTES) {
      body = null
      once(null)
    } else {
      body.push(chunk)
    }
  })
  req.once('end', () => once(body === null ? null : refusalIdsOf(body.bytes())))
  req.once('error', failed)
}
