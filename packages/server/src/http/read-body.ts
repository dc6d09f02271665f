/**
 * Reads a public request's body up to a limit. JSON-RPC messages are small; the edge must see a
 * POST body whole to count and govern it, so it is read before forwarding, never beyond the limit.
 */
import type { IncomingMessage } from 'node:http'

/**
 * The body, 'too_large' once it passes `limit` bytes (reading stops there), or 'aborted' when the
 * client went away before sending all of it.
 */
export async function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<Buffer | 'too_large' | 'aborted'> {
  const declared = Number(req.headers['content-length'] ?? NaN)
  if (Number.isFinite(declared) && declared > limit) return 'too_large'
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        req.off('data', onData)
        req.pause()
        resolve('too_large')
        return
      }
      chunks.push(chunk)
    }
    req.on('data', onData)
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)))
    req.once('error', () => resolve('aborted'))
    req.once('close', () => {
      if (!req.complete) resolve('aborted')
    })
  })
}
