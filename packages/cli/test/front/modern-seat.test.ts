/**
 * A seat (one backend session for one 2026-07-28 exchange) is given back when its agent hangs up
 * before the backend answered its `initialize`, as a stdio child still starting may not.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { BackendSession, McpBackend } from '../../src/front/mcp-backend.js'
import { ModernSeat } from '../../src/front/modern-seat.js'

const meta = {
  protocolVersion: '2026-07-28',
  clientCapabilities: {},
  clientInfo: { name: 'test', version: '1' },
  logLevel: null,
}

/** A backend that never answers, recording which sessions were closed. */
function silentBackend() {
  const closed: boolean[] = []
  const backend: McpBackend = {
    openSession(): BackendSession {
      const at = closed.push(false) - 1
      return {
        request: () => {},
        notify: () => {},
        respond: () => {},
        close: () => void (closed[at] = true),
      }
    },
    close: async () => {},
  }
  return { backend, closed }
}

describe('ModernSeat.open', () => {
  it('gives the seat back when the agent hangs up before the backend answers', async () => {
    const { backend, closed } = silentBackend()
    const hangUp = new AbortController()
    const opening = ModernSeat.open(backend, meta, hangUp.signal)
    hangUp.abort()
    await assert.rejects(opening, /closed the request/)
    assert.deepEqual(closed, [true])
  })

  it('opens no seat for an agent already gone', async () => {
    const { backend, closed } = silentBackend()
    await assert.rejects(ModernSeat.open(backend, meta, AbortSignal.abort()), /closed the request/)
    assert.deepEqual(closed, [true])
  })
})
