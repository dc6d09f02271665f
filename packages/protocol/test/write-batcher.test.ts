// The write batcher on a real loopback socket: writes of one turn leave in one writev, in order,
// and are flushed at the end of the turn even when nothing else is written.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, connect, type Socket } from 'node:net'
import { describe, it } from 'node:test'
import { WriteBatcher } from '../src/index.js'

/** A connected socket pair on 127.0.0.1; `received` collects what the server side read. */
async function socketPair(): Promise<{
  client: Socket
  received: () => Buffer
  close: () => void
}> {
  const chunks: Buffer[] = []
  let accepted: Socket | undefined
  const server = createServer((s) => {
    accepted = s
    s.on('data', (c: Buffer) => chunks.push(c))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  const client = connect(port, '127.0.0.1')
  await Promise.all([once(client, 'connect'), once(server, 'connection')])
  return {
    client,
    received: () => Buffer.concat(chunks),
    close: () => {
      client.destroy()
      accepted?.destroy()
      server.close()
    },
  }
}

/** Count the system-call batches a socket hands to the kernel (single writes and writevs). */
function countWrites(socket: Socket): { batches: number[] } {
  const seen = { batches: [] as number[] }
  const s = socket as unknown as {
    _write: (c: Buffer, e: string, cb: () => void) => void
    _writev: (c: { chunk: Buffer }[], cb: () => void) => void
  }
  const write = s._write.bind(socket)
  const writev = s._writev.bind(socket)
  s._write = (c, e, cb) => (seen.batches.push(1), write(c, e, cb))
  s._writev = (c, cb) => (seen.batches.push(c.length), writev(c, cb))
  return seen
}

const turn = () => new Promise((r) => setImmediate(r))

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5))
}

describe('WriteBatcher', () => {
  it('sends the writes of one turn in a single writev, in order', async () => {
    const pair = await socketPair()
    try {
      const writes = countWrites(pair.client)
      const batcher = new WriteBatcher(pair.client)
      for (const part of ['one ', 'two ', 'three ', 'four']) {
        batcher.hold()
        pair.client.write(part)
      }
      assert.deepEqual(writes.batches, [], 'a write left before the end of the turn')
      await turn()
      assert.deepEqual(writes.batches, [4])
      await until(() => pair.received().length === 18)
      assert.equal(pair.received().toString(), 'one two three four')
    } finally {
      pair.close()
    }
  })

  it('flushes at the end of the turn although nothing else is written', async () => {
    const pair = await socketPair()
    try {
      const batcher = new WriteBatcher(pair.client)
      batcher.hold()
      pair.client.write('lonely frame')
      assert.equal(batcher.holding, true)
      await until(() => pair.received().length === 12)
      assert.equal(pair.received().toString(), 'lonely frame')
      assert.equal(batcher.holding, false)
    } finally {
      pair.close()
    }
  })

  it('holds each turn separately and keeps the order across turns', async () => {
    const pair = await socketPair()
    try {
      const writes = countWrites(pair.client)
      const batcher = new WriteBatcher(pair.client)
      batcher.hold()
      pair.client.write('a')
      batcher.hold()
      pair.client.write('b')
      await turn()
      batcher.hold()
      pair.client.write('c')
      await turn()
      assert.deepEqual(writes.batches, [2, 1])
      await until(() => pair.received().length === 3)
      assert.equal(pair.received().toString(), 'abc')
    } finally {
      pair.close()
    }
  })

  it('leaves nested corks (a writer that corks for itself) balanced', async () => {
    const pair = await socketPair()
    try {
      const batcher = new WriteBatcher(pair.client)
      batcher.hold()
      // ws corks around a header and its payload; the batch must still hold both.
      pair.client.cork()
      pair.client.write('head|')
      pair.client.write('payload')
      pair.client.uncork()
      assert.equal(pair.client.writableCorked, 1)
      await turn()
      assert.equal(pair.client.writableCorked, 0)
      await until(() => pair.received().length === 12)
      assert.equal(pair.received().toString(), 'head|payload')
    } finally {
      pair.close()
    }
  })

  it('does not fail when the socket ended while writes were held', async () => {
    const pair = await socketPair()
    try {
      const batcher = new WriteBatcher(pair.client)
      batcher.hold()
      pair.client.write('last words')
      pair.client.end()
      await turn()
      await until(() => pair.received().length === 10)
      assert.equal(pair.received().toString(), 'last words')
    } finally {
      pair.close()
    }
  })

  it('flush sends what is held at once, and the turn still ends cleanly', async () => {
    const pair = await socketPair()
    try {
      const writes = countWrites(pair.client)
      const batcher = new WriteBatcher(pair.client)
      batcher.hold()
      pair.client.write('close')
      batcher.hold()
      pair.client.write(' frame')
      batcher.flush()
      assert.deepEqual(writes.batches, [2], 'flush wrote before the end of the turn')
      assert.equal(batcher.holding, false)
      batcher.flush()
      await turn()
      assert.equal(pair.client.writableCorked, 0)
      await until(() => pair.received().length === 11)
      assert.equal(pair.received().toString(), 'close frame')
    } finally {
      pair.close()
    }
  })
})
