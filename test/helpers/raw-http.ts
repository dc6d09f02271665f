// HTTP/1.1 over a plain socket, for requests an HTTP client library would refuse to send (a
// 9,000-character path, 300 headers, header values it would escape): write the bytes, read the
// answer until the server closes the connection; or hold a request's body back until a test
// has done something between its head and its body (`heldRequest`).
import { once } from 'node:events'
import { connect } from 'node:net'

/** An answer as read off the socket. */
export interface RawAnswer {
  readonly status: number
  /** Header fields in order, names lower-cased (repeated ones repeated). */
  readonly headers: readonly (readonly [string, string])[]
  readonly body: string
  /** The first value of header `name`. */
  header(name: string): string | undefined
}

/**
 * Send one request to 127.0.0.1:`port`: `head` lines (request line and headers, no trailing
 * blank line) and `body`. `Connection: close` and `Content-Length` are added.
 */
export function rawRequest(port: number, head: readonly string[], body = ''): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1')
      const split = text.indexOf('\r\n\r\n')
      const lines = (split === -1 ? text : text.slice(0, split)).split('\r\n')
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '')?.[1] ?? NaN)
      const headers = lines.slice(1).map((line): [string, string] => {
        const colon = line.indexOf(':')
        return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]
      })
      resolve({
        status,
        headers,
        body: split === -1 ? '' : Buffer.from(text.slice(split + 4), 'latin1').toString('utf8'),
        header: (name) => headers.find(([n]) => n === name)?.[1],
      })
    })
    const bytes = Buffer.from(body)
    // Not end(): node's server drops a pending response when its client half-closes first.
    // `Connection: close` has the server close once it answered.
    socket.write(
      Buffer.concat([
        Buffer.from(
          [...head, `Content-Length: ${bytes.length}`, 'Connection: close', '', ''].join('\r\n'),
          'latin1',
        ),
        bytes,
      ]),
    )
  })
}

/**
 * Write `request` (bytes as given: any request line, any framing) to 127.0.0.1:`port`, and
 * `later` after `laterMs` when given (a body that comes after its head); all that was read until
 * the connection closed, as latin1 text. A reset ends it too: what came before it is the answer
 * (an answer cut short may end so).
 */
export function rawExchange(
  port: number,
  request: string,
  later?: { readonly text: string; readonly afterMs: number },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.once('close', () => resolve(text))
    socket.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' ? undefined : reject(err),
    )
    socket.write(request)
    if (later) setTimeout(() => socket.writable && socket.write(later.text), later.afterMs)
  })
}

/**
 * A request whose head is sent to 127.0.0.1:`port` now and whose body waits for the returned
 * call, which sends it and gives the answer's status: for what happens between a request's
 * authentication and its body (a credential revoked meanwhile).
 */
export async function heldRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<() => Promise<number>> {
  const socket = connect(port, '127.0.0.1')
  await once(socket, 'connect')
  const head = [
    `${method} ${path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    `content-length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ]
  socket.write(`${head.join('\r\n')}\r\n\r\n`)
  let answer = ''
  socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk))
  return async () => {
    socket.write(body)
    while (!/^HTTP\/1\.1 \d{3}/.test(answer)) await once(socket, 'data')
    socket.destroy()
    return Number(answer.slice(9, 12))
  }
}
