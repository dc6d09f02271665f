/**
 * Bytes ⇄ frames. `decodeFrame` is the only parser of tunnel bytes and treats them as untrusted:
 * anything truncated, oversized, of unknown type, on the wrong stream or malformed raises a
 * ProtocolError, never another exception.
 */
import {
  FLAG_FIN,
  FRAME_TYPE,
  GOAWAY_CODE,
  HEADER_BYTES,
  MAX_CHUNK_BYTES,
  MAX_CONTROL_BYTES,
  MAX_FRAME_BYTES,
  MAX_HEADER_PAIRS,
  MAX_META_BYTES,
  MAX_PATH_LENGTH,
  RESET_CODE,
  type Frame,
  type GoawayCode,
  type HeaderPairs,
  type Hello,
  type Notice,
  type RequestHead,
  type ResetCode,
  type ResponseHead,
  type Welcome,
} from './frame.js'
import { checkAccessNote, readAccessNote, readFeatures } from './access-note.js'
import { requestMeta, responseMeta } from './head-limits.js'
import { ProtocolError } from './protocol-error.js'

const EMPTY = new Uint8Array(0)
const RESET_CODES = new Set<number>(Object.values(RESET_CODE))
const GOAWAY_CODES = new Set<number>(Object.values(GOAWAY_CODE))

function header(size: number, type: number, flags: number, streamId: number): Buffer {
  const buf = Buffer.allocUnsafe(HEADER_BYTES + size)
  buf[0] = type
  buf[1] = flags
  buf.writeUInt32BE(streamId, 2)
  return buf
}

function encodeWithMeta(
  type: number,
  streamId: number,
  json: string,
  body: Uint8Array | undefined,
  fin: boolean,
): Buffer {
  // Measure the JSON and write it straight into the frame: no intermediate buffer per head.
  const metaLen = Buffer.byteLength(json)
  if (metaLen > MAX_META_BYTES) {
    throw new RangeError(`head of ${metaLen} bytes exceeds ${MAX_META_BYTES}`)
  }
  const bodyLen = body?.length ?? 0
  if (bodyLen > MAX_CHUNK_BYTES) throw new RangeError(`inline body exceeds ${MAX_CHUNK_BYTES}`)
  const buf = header(2 + metaLen + bodyLen, type, fin ? FLAG_FIN : 0, streamId)
  buf.writeUInt16BE(metaLen, HEADER_BYTES)
  buf.write(json, HEADER_BYTES + 2)
  if (body && bodyLen > 0) buf.set(body, HEADER_BYTES + 2 + metaLen)
  return buf
}

function encodeJson(type: number, value: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(value))
  const buf = header(payload.length, type, 0, 0)
  payload.copy(buf, HEADER_BYTES)
  return buf
}

/**
 * Encode a DATA frame whose payload is the concatenation of `parts` (the mux sends several queued
 * pieces of a stream as one frame), into `into` when given (the result is then a view of it).
 * Throws RangeError when the parts exceed the chunk limit or do not fit `into`.
 */
export function encodeData(
  streamId: number,
  parts: readonly Uint8Array[],
  fin: boolean,
  into?: Buffer,
): Buffer {
  let size = 0
  for (const part of parts) size += part.length
  if (size > MAX_CHUNK_BYTES) throw new RangeError(`DATA exceeds ${MAX_CHUNK_BYTES}`)
  let buf: Buffer
  if (into) {
    if (into.length < HEADER_BYTES + size) throw new RangeError('DATA does not fit the buffer')
    buf = into.subarray(0, HEADER_BYTES + size)
    buf[0] = FRAME_TYPE.data
    buf[1] = fin ? FLAG_FIN : 0
    buf.writeUInt32BE(streamId, 2)
  } else {
    buf = header(size, FRAME_TYPE.data, fin ? FLAG_FIN : 0, streamId)
  }
  let at = HEADER_BYTES
  for (const part of parts) {
    buf.set(part, at)
    at += part.length
  }
  return buf
}

/** Encode one frame into one WebSocket message. Throws RangeError for frames over the limits. */
export function encodeFrame(frame: Frame): Buffer {
  switch (frame.type) {
    case 'hello':
      return encodeJson(FRAME_TYPE.hello, frame.hello)
    case 'welcome':
      if (frame.welcome.access) checkAccessNote(frame.welcome.access)
      return encodeJson(FRAME_TYPE.welcome, frame.welcome)
    case 'notice':
      if (frame.notice.access) checkAccessNote(frame.notice.access)
      return encodeJson(FRAME_TYPE.notice, frame.notice)
    case 'open':
      return encodeWithMeta(
        FRAME_TYPE.open,
        frame.streamId,
        requestMeta(frame.head),
        frame.body,
        frame.fin,
      )
    case 'response':
      return encodeWithMeta(
        FRAME_TYPE.response,
        frame.streamId,
        responseMeta(frame.head),
        frame.body,
        frame.fin,
      )
    case 'data':
      return encodeData(frame.streamId, [frame.chunk], frame.fin)
    case 'window': {
      const buf = header(4, FRAME_TYPE.window, 0, frame.streamId)
      buf.writeUInt32BE(frame.credit, HEADER_BYTES)
      return buf
    }
    case 'rst': {
      const reason = Buffer.from(frame.reason.slice(0, 1024))
      const buf = header(4 + reason.length, FRAME_TYPE.rst, 0, frame.streamId)
      buf.writeUInt32BE(frame.code, HEADER_BYTES)
      reason.copy(buf, HEADER_BYTES + 4)
      return buf
    }
    case 'ping':
    case 'pong': {
      const buf = header(8, frame.type === 'ping' ? FRAME_TYPE.ping : FRAME_TYPE.pong, 0, 0)
      buf.writeBigUInt64BE(BigInt(frame.payload), HEADER_BYTES)
      return buf
    }
    case 'goaway': {
      const buf = header(12, FRAME_TYPE.goaway, 0, 0)
      buf.writeUInt32BE(frame.lastStreamId, HEADER_BYTES)
      buf.writeUInt32BE(frame.code, HEADER_BYTES + 4)
      buf.writeUInt32BE(frame.reconnectAfterMs, HEADER_BYTES + 8)
      return buf
    }
  }
}

function fail(
  code: ConstructorParameters<typeof ProtocolError>[0],
  message: string,
  streamId = 0,
): never {
  throw new ProtocolError(code, message, streamId)
}

function parseJson(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'))
  } catch {
    return fail('bad_payload', `${what} is not valid JSON`)
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function headerPairs(v: unknown): HeaderPairs {
  if (!Array.isArray(v) || v.length > MAX_HEADER_PAIRS)
    fail('bad_payload', `headers must be a list of at most ${MAX_HEADER_PAIRS} pairs`)
  for (const pair of v as unknown[]) {
    if (
      !Array.isArray(pair) ||
      pair.length !== 2 ||
      typeof pair[0] !== 'string' ||
      typeof pair[1] !== 'string'
    ) {
      fail('bad_payload', 'each header must be a [name, value] pair of strings')
    }
  }
  return v as HeaderPairs
}

function requestHead(meta: unknown): RequestHead {
  if (!isRecord(meta)) return fail('bad_payload', 'OPEN head must be an object')
  const { m, p, h } = meta
  if (typeof m !== 'string' || !/^[A-Z]{1,16}$/.test(m))
    fail('bad_payload', 'OPEN method is invalid')
  if (typeof p !== 'string' || !p.startsWith('/') || p.length > MAX_PATH_LENGTH)
    fail('bad_payload', 'OPEN path is invalid')
  return { method: m, path: p, headers: headerPairs(h) }
}

function responseHead(meta: unknown): ResponseHead {
  if (!isRecord(meta)) return fail('bad_payload', 'RESPONSE head must be an object')
  const { s, h } = meta
  if (typeof s !== 'number' || !Number.isInteger(s) || s < 100 || s > 599) {
    fail('bad_payload', 'RESPONSE status is invalid')
  }
  return { status: s, headers: headerPairs(h) }
}

function hello(v: unknown): Hello {
  if (!isRecord(v) || typeof v.version !== 'number' || typeof v.agent !== 'string') {
    return fail('bad_payload', 'HELLO needs a numeric version and an agent string')
  }
  if (v.resume !== undefined && typeof v.resume !== 'string')
    fail('bad_payload', 'HELLO resume must be a string')
  if (v.name !== undefined && typeof v.name !== 'string')
    fail('bad_payload', 'HELLO name must be a string')
  if (v.features !== undefined) readFeatures(v.features)
  return v as unknown as Hello
}

function welcome(v: unknown): Welcome {
  if (
    !isRecord(v) ||
    typeof v.version !== 'number' ||
    typeof v.tunnelId !== 'string' ||
    typeof v.publicUrl !== 'string' ||
    typeof v.resumeToken !== 'string' ||
    typeof v.resumed !== 'boolean' ||
    typeof v.graceSecs !== 'number' ||
    typeof v.heartbeatMs !== 'number'
  ) {
    return fail('bad_payload', 'WELCOME is missing fields')
  }
  // The fields this side knows, so what it keeps of a newer broker's WELCOME is what it checked.
  const known: Welcome = {
    version: v.version,
    tunnelId: v.tunnelId,
    publicUrl: v.publicUrl,
    resumeToken: v.resumeToken,
    resumed: v.resumed,
    graceSecs: v.graceSecs,
    heartbeatMs: v.heartbeatMs,
  }
  return v.access === undefined ? known : { ...known, access: readAccessNote(v.access, 'WELCOME') }
}

function notice(v: unknown): Notice {
  if (!isRecord(v)) return fail('bad_payload', 'NOTICE must be a JSON object')
  return v.access === undefined ? {} : { access: readAccessNote(v.access, 'NOTICE') }
}

function splitMeta(
  payload: Uint8Array,
  what: string,
): { meta: unknown; body: Uint8Array | undefined } {
  if (payload.length < 2) fail('truncated', `${what} is shorter than its head length`)
  const metaLen = (payload[0]! << 8) | payload[1]!
  if (metaLen > MAX_META_BYTES) fail('too_large', `${what} head exceeds ${MAX_META_BYTES} bytes`)
  if (payload.length < 2 + metaLen) fail('truncated', `${what} head is truncated`)
  const bodyLen = payload.length - 2 - metaLen
  if (bodyLen > MAX_CHUNK_BYTES)
    fail('too_large', `${what} inline body exceeds ${MAX_CHUNK_BYTES} bytes`)
  const meta = parseJson(payload.subarray(2, 2 + metaLen), `${what} head`)
  return { meta, body: bodyLen > 0 ? payload.subarray(2 + metaLen) : undefined }
}

function exactLength(payload: Uint8Array, n: number, what: string): DataView {
  if (payload.length < n) fail('truncated', `${what} payload is truncated`)
  if (payload.length > n)
    fail('bad_payload', `${what} payload has ${payload.length - n} extra bytes`)
  return new DataView(payload.buffer, payload.byteOffset, payload.length)
}

/** Decode one WebSocket message into a frame, or throw ProtocolError. */
export function decodeFrame(bytes: Uint8Array): Frame {
  if (bytes.length < HEADER_BYTES)
    fail('truncated', `frame of ${bytes.length} bytes is shorter than its header`)
  if (bytes.length > MAX_FRAME_BYTES)
    fail('too_large', `frame of ${bytes.length} bytes exceeds ${MAX_FRAME_BYTES}`)
  const type = bytes[0]!
  const flags = bytes[1]!
  const streamId = ((bytes[2]! << 24) >>> 0) + ((bytes[3]! << 16) | (bytes[4]! << 8) | bytes[5]!)
  const payload = bytes.subarray(HEADER_BYTES)
  const fin = (flags & FLAG_FIN) !== 0
  if ((flags & ~FLAG_FIN) !== 0) fail('bad_payload', `unknown flags 0x${flags.toString(16)}`)
  const connectionLevel =
    type === FRAME_TYPE.hello ||
    type === FRAME_TYPE.welcome ||
    type === FRAME_TYPE.notice ||
    type === FRAME_TYPE.ping ||
    type === FRAME_TYPE.pong ||
    type === FRAME_TYPE.goaway
  if (connectionLevel && streamId !== 0) fail('bad_stream', `frame type ${type} must use stream 0`)
  const streamLevel =
    type === FRAME_TYPE.open ||
    type === FRAME_TYPE.response ||
    type === FRAME_TYPE.data ||
    type === FRAME_TYPE.rst
  if (streamLevel && streamId === 0) fail('bad_stream', `frame type ${type} needs a stream id`)
  if (connectionLevel && payload.length > MAX_CONTROL_BYTES)
    fail('too_large', `control frame exceeds ${MAX_CONTROL_BYTES} bytes`)

  if (!streamLevel && !(type === FRAME_TYPE.window && streamId !== 0))
    return decodePayload(type, streamId, payload, fin)
  // The frame is well framed and names its stream: a fault in its payload is that stream's alone.
  try {
    return decodePayload(type, streamId, payload, fin)
  } catch (err) {
    if (err instanceof ProtocolError && err.streamId === 0)
      throw new ProtocolError(err.code, err.message, streamId)
    throw err
  }
}

function decodePayload(type: number, streamId: number, payload: Uint8Array, fin: boolean): Frame {
  switch (type) {
    case FRAME_TYPE.hello:
      return { type: 'hello', hello: hello(parseJson(payload, 'HELLO')) }
    case FRAME_TYPE.welcome:
      return { type: 'welcome', welcome: welcome(parseJson(payload, 'WELCOME')) }
    case FRAME_TYPE.notice:
      return { type: 'notice', notice: notice(parseJson(payload, 'NOTICE')) }
    case FRAME_TYPE.open: {
      const { meta, body } = splitMeta(payload, 'OPEN')
      return body
        ? { type: 'open', streamId, head: requestHead(meta), body, fin }
        : { type: 'open', streamId, head: requestHead(meta), fin }
    }
    case FRAME_TYPE.response: {
      const { meta, body } = splitMeta(payload, 'RESPONSE')
      return body
        ? { type: 'response', streamId, head: responseHead(meta), body, fin }
        : { type: 'response', streamId, head: responseHead(meta), fin }
    }
    case FRAME_TYPE.data:
      if (payload.length > MAX_CHUNK_BYTES)
        fail('too_large', `DATA exceeds ${MAX_CHUNK_BYTES} bytes`)
      return { type: 'data', streamId, chunk: payload.length > 0 ? payload : EMPTY, fin }
    case FRAME_TYPE.window: {
      const credit = exactLength(payload, 4, 'WINDOW').getUint32(0)
      if (credit === 0) fail('bad_payload', 'WINDOW credit must be positive')
      return { type: 'window', streamId, credit }
    }
    case FRAME_TYPE.rst: {
      if (payload.length < 4) fail('truncated', 'RST payload is truncated')
      if (payload.length > 4 + 1024 * 4) fail('too_large', 'RST reason is too long')
      const code = new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0)
      if (!RESET_CODES.has(code)) fail('bad_payload', `unknown RST code ${code}`)
      const reason = Buffer.from(
        payload.buffer,
        payload.byteOffset + 4,
        payload.length - 4,
      ).toString('utf8')
      return { type: 'rst', streamId, code: code as ResetCode, reason }
    }
    case FRAME_TYPE.ping:
    case FRAME_TYPE.pong: {
      const view = exactLength(payload, 8, type === FRAME_TYPE.ping ? 'PING' : 'PONG')
      // Exact: a value past 2^53 read as a number came back changed, and 2^64 − 1 rounded to
      // 2^64, which the PONG could not encode (the connection dropped, found by a hostile review).
      const exact = view.getBigUint64(0)
      const value = exact <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(exact) : exact
      return type === FRAME_TYPE.ping
        ? { type: 'ping', payload: value }
        : { type: 'pong', payload: value }
    }
    case FRAME_TYPE.goaway: {
      const view = exactLength(payload, 12, 'GOAWAY')
      const code = view.getUint32(4)
      if (!GOAWAY_CODES.has(code)) fail('bad_payload', `unknown GOAWAY code ${code}`)
      return {
        type: 'goaway',
        lastStreamId: view.getUint32(0),
        code: code as GoawayCode,
        reconnectAfterMs: view.getUint32(8),
      }
    }
    default:
      return fail('unknown_type', `unknown frame type ${type}`)
  }
}
