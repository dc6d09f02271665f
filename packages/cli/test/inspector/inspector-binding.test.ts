/**
 * Where the inspector listens: 127.0.0.1:4040 by default with a fallback to a free port when
 * taken (and a warning), an error for an explicit address that cannot be bound or for a taken
 * default with a fixed token, the printed URL.
 */
import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import { describe, it } from 'node:test'
import { UsageError } from '../../src/cli-errors.js'
import { startInspector } from '../../src/inspector/inspector-server.js'
import { captureLogger } from '../helpers/capture-logger.js'
import { occupy, portOf, send } from './inspector-client.js'

describe('inspector binding', { timeout: 30_000 }, () => {
  const base = {
    token: null,
    admin: false,
    recorder: undefined as never,
    replay: () => Promise.reject(new Error('unused')),
  }

  it('falls back to a free port when the default address is taken', async () => {
    const taken = await occupy()
    const logger = captureLogger()
    const inspector = await startInspector({
      ...base,
      addr: `127.0.0.1:${portOf(taken)}`,
      addrExplicit: false,
      logger,
    })
    try {
      assert.notEqual(inspector.port, portOf(taken))
      assert.equal(inspector.url, `http://127.0.0.1:${inspector.port}/#token=${inspector.token}`)
      await logger.waitFor(
        new RegExp(
          `WARN .*127\\.0\\.0\\.1:${portOf(taken)} is in use; listening on 127\\.0\\.0\\.1:${inspector.port}`,
        ),
      )
      const reply = await send(inspector.port, '/')
      assert.equal(reply.status, 200)
    } finally {
      await inspector.close()
      taken.close()
    }
  })

  it('uses 127.0.0.1:4040 by default, or another port when 4040 is taken', async () => {
    let holder: Server | null = null
    try {
      holder = await occupy(4040)
    } catch {
      // Something else holds 4040: the inspector must fall back all the same.
    }
    const inspector = await startInspector({ ...base, addr: '127.0.0.1:4040', addrExplicit: false })
    try {
      assert.notEqual(inspector.port, 4040)
    } finally {
      await inspector.close()
      holder?.close()
    }
  })

  it('fails when an explicit address is taken', async () => {
    const taken = await occupy()
    try {
      await assert.rejects(
        startInspector({ ...base, addr: `127.0.0.1:${portOf(taken)}`, addrExplicit: true }),
        (err: unknown) => {
          assert.ok(err instanceof UsageError)
          assert.match(err.message, /EADDRINUSE/)
          assert.match(err.message, /--inspect-addr/)
          return true
        },
      )
    } finally {
      taken.close()
    }
  })

  it('does not fall back with a fixed token: its bookmarked URL would reach the holder', async () => {
    const taken = await occupy()
    try {
      await assert.rejects(
        startInspector({
          ...base,
          token: 'fixed-token-123',
          addr: `127.0.0.1:${portOf(taken)}`,
          addrExplicit: false,
        }),
        (err: unknown) => {
          assert.ok(err instanceof UsageError)
          assert.match(err.message, /in use, and BURROW_INSPECT_TOKEN is set/)
          return true
        },
      )
    } finally {
      taken.close()
    }
    const free = await startInspector({
      ...base,
      token: 'fixed-token-123',
      addr: '127.0.0.1:0',
      addrExplicit: false,
    })
    assert.equal(free.url, `http://127.0.0.1:${free.port}/#token=fixed-token-123`)
    await free.close()
  })

  it('warns about a non-loopback address only when the address bound is not loopback', async () => {
    // 127.1 and the IPv4-mapped forms are 127.0.0.1; the inspector used to warn about them.
    for (const addr of ['127.1:0', '[::ffff:7f00:1]:0', '[::ffff:127.0.0.1]:0', '0.0.0.0:0']) {
      const logger = captureLogger()
      const inspector = await startInspector({ ...base, addr, addrExplicit: true, logger })
      await inspector.close()
      const warned = logger.lines.some((l) => l.includes('which is not a loopback address'))
      assert.equal(warned, addr === '0.0.0.0:0', addr)
    }
  })

  it('refuses --inspect-admin off loopback, and lets the address go', async () => {
    // Found by hostile review: bound to the network, the Config tab (which starts the commands
    // it is given) took the token that every request carries there unencrypted.
    const layout = {
      get: () => [],
      apply: () => Promise.resolve(),
      save: () => Promise.resolve('/nowhere'),
      file: null,
    }
    const held = await occupy()
    const port = portOf(held)
    await new Promise<void>((resolve) => held.close(() => resolve()))
    const admin = { ...base, admin: true, layout, addrExplicit: true }
    await assert.rejects(startInspector({ ...admin, addr: `0.0.0.0:${port}` }), (err: unknown) => {
      assert.ok(err instanceof UsageError)
      assert.match(err.message, /--inspect-admin needs the inspector on a loopback address/)
      assert.match(err.message, /ssh -L/)
      return true
    })
    const again = await occupy(port)
    await new Promise<void>((resolve) => again.close(() => resolve()))
    for (const addr of ['127.0.0.1:0', 'localhost:0', '[::ffff:7f00:1]:0']) {
      const inspector = await startInspector({ ...admin, addr })
      await inspector.close()
    }
  })

  it('needs a layout for admin', async () => {
    await assert.rejects(
      startInspector({ ...base, admin: true, addr: '127.0.0.1:0', addrExplicit: true }),
      /admin needs a layout/,
    )
  })
})
