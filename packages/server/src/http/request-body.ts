/**
 * Reading bounded request bodies on the service host: HTML form posts and JSON API bodies. A
 * body over the limit, of the wrong type or malformed is a clear `HttpError`, never a crash.
 */
import type { IncomingMessage } from 'node:http'
import { ByteBlocks } from '@burrow/protocol'
import { HttpError } from './http-error.js'

/** Largest form or JSON body the dashboard and API accept. */
export const MAX_APP_BODY_BYTES = 64 * 1024

/** The raw body, up to `limit` bytes (413 beyond). */
export async function readRawBody(
  req: IncomingMessage,
  limit = MAX_APP_BODY_BYTES,
): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0')
  if (declared > limit) throw tooLarge(limit)
  // Copied into blocks: node gives a chunked body one Buffer per chunk, and a body sent one byte
  // per chunk, kept as it came, held some 200 bytes of heap per byte.
  const chunks = new ByteBlocks()
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      if (chunks.length + chunk.length > limit) throw tooLarge(limit)
      chunks.push(chunk)
    }
  } catch (err) {
    // The client hung up before its body ended: its doing, not burrowd's failure (anyone may
    // begin a POST to /oauth/token and leave, and each was logged with a stack as one).
    if ((err as NodeJS.ErrnoException).code === 'ECONNRESET') {
      throw new HttpError(400, 'aborted', 'the request body did not arrive whole')
    }
    throw err
  }
  return Buffer.concat(chunks.chunks, chunks.length)
}

/** An `application/x-www-form-urlencoded` body. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded') {
    throw new HttpError(
      415,
      'unsupported_media_type',
      'forms must be sent as application/x-www-form-urlencoded',
    )
  }
  return new URLSearchParams((await readRawBody(req)).toString('utf8'))
}

/** A JSON object body; an empty body is `{}`. */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const raw = await readRawBody(req)
  if (raw.length === 0) return {}
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase()
  if (type !== 'application/json') {
    throw new HttpError(415, 'unsupported_media_type', 'send the request body as application/json')
  }
  let value: unknown
  try {
    value = JSON.parse(raw.toString('utf8'))
  } catch (err) {
    throw new HttpError(
      400,
      'invalid_json',
      `the request body is not valid JSON: ${(err as Error).message}`,
    )
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'invalid_json', 'the request body must be a JSON object')
  }
  return value as Record<string, unknown>
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, 'payload_too_large', `request bodies are limited to ${limit} bytes`)
}
