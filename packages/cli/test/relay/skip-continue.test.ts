// The relay's connections drop a local server's unasked `100 Continue` heads where an answer
// starts, whatever pieces they arrive in, keep the other interim heads (102, 103) for undici, and
// leave everything else as it came: the answer's own bytes, and anything within an answer.
import assert from 'node:assert/strict'
import type { Socket } from 'node:net'
import { Duplex } from 'node:stream'
import { describe, it } from 'node:test'
import { interimHead, skipContinueHeads } from '../../src/relay/skip-continue.js'

/** A stand-in for a connection: what it receives is pushed in; `read` says what undici reads. */
function connection() {
  const socket = new Duplex({
    read() {},
    write(_chunk, _encoding, callback) {
      callback()
    },
  })
  skipContinueHeads(socket as unknown as Socket)
  const received = (...pieces: string[]) => {
    for (const piece of pieces) socket.push(Buffer.from(piece, 'latin1'))
  }
  const read = () => {
    const parts: Buffer[] = []
    for (let part: Buffer | null; (part = socket.read() as Buffer | null) !== null;)
      parts.push(part)
    return Buffer.concat(parts).toString('latin1')
  }
  return { socket, received, read }
}

const FINAL = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'

describe('skipContinueHeads', () => {
  it('drops a 100 head where an answer starts, in whatever pieces it comes', () => {
    const { socket, received, read } = connection()
    socket.write('POST /mcp HTTP/1.1\r\n\r\n')
    received('HT', 'TP/1.1 1', '00 Continue\r\n', '\r', '\nHTTP/1.0 100\r\n\r\n', FINAL)
    assert.equal(read(), FINAL)
  })

  it('keeps 102 and 103 heads, and drops a 100 between them', () => {
    const { socket, received, read } = connection()
    socket.write('POST /mcp HTTP/1.1\r\n\r\n')
    const processing = 'HTTP/1.1 102 Processing\r\n\r\n'
    const hints = 'HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n'
    received(processing + 'HTTP/1.1 100 Continue\r\n\r\n' + hints, FINAL)
    assert.equal(read(), processing + hints + FINAL)
  })

  it('leaves bytes within an answer, and the next request starts another', () => {
    const { socket, received, read } = connection()
    socket.write('POST /mcp HTTP/1.1\r\n\r\n')
    const body = 'HTTP/1.1 100 Continue\r\n\r\n'
    const answer = `HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`
    received(answer, body)
    assert.equal(read(), answer + body)
    socket.write('POST /mcp HTTP/1.1\r\n\r\n')
    received('HTTP/1.1 100 Continue\r\n\r\n', FINAL)
    assert.equal(read(), FINAL)
  })

  it('tells heads apart', () => {
    const head = (text: string) => interimHead(Buffer.from(text, 'latin1'))
    assert.deepEqual(head('HTTP/1.1 100 Continue\r\n\r\nrest'), { length: 25, drop: true })
    assert.deepEqual(head('HTTP/1.1 103\r\nlink: </a>\r\n\r\n'), { length: 28, drop: false })
    assert.equal(head('HTTP/1.1 101 Switching Protocols\r\n\r\n'), 'final')
    assert.equal(head('HTTP/1.1 1000 x\r\n\r\n'), 'final')
    assert.equal(head('HTTP/1.1 200 OK\r\n\r\n'), 'final')
    assert.equal(head('HTTP/2 100\r\n\r\n'), 'final')
    assert.equal(head('HTTP/1.1 10'), 'more')
    assert.equal(head('HTTP/1.1 100 Continue\r\n'), 'more')
    assert.equal(head(`HTTP/1.1 100 ${'x'.repeat(17 * 1024)}`), 'final')
  })
})
