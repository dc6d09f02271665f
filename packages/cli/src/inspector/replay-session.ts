/**
 * A session for replays whose own session has ended: the recorded `initialize` of that session
 * sent again (or a minimal one), then `notifications/initialized`, straight to the local handler.
 */
import { withFreshIds } from './fresh-ids.js'
import type { ResponseCapture } from './response-capture.js'
import type { TrafficRecorder } from './traffic-recorder.js'

/** One request sent to the handler and what came back. */
export interface Sent {
  readonly capture: ResponseCapture
  readonly error: string | null
}

export type Send = (
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array,
) => Promise<Sent>

/**
 * Open a session in place of `ended`: its own recorded `initialize` when the recorder still has
 * it (same capabilities and client info), else a minimal one, then `notifications/initialized`.
 * Resolves with the new session id, or with why none could be opened.
 */
export async function openSession(
  send: Send,
  recorder: TrafficRecorder,
  ended: string,
  headers: Readonly<Record<string, string>>,
  base: string,
): Promise<{ sessionId: string; with: string } | string> {
  const { 'mcp-session-id': _ended, ...rest } = headers
  const original = recorder
    .list()
    .find((s) => s.rpcMethod === 'initialize' && s.sessionId === ended && s.replayable)
  const recorded = original ? recorder.get(original.id)?.request() : undefined
  const init = recorded
    ? withFreshIds(recorded.body, `${base}-initialize`).body
    : encode({
        jsonrpc: '2.0',
        id: `${base}-initialize`,
        method: 'initialize',
        params: {
          protocolVersion: headers['mcp-protocol-version'] ?? '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'burrow-inspector', version: '1' },
        },
      })
  const answer = await send('POST', recorded?.path ?? '/mcp', rest, init)
  const sessionId = answer.capture.headers['mcp-session-id']
  if (answer.error !== null) return answer.error
  if (answer.capture.status !== 200 || sessionId === undefined)
    return `initialize answered ${answer.capture.status ?? 'nothing'}${sessionId === undefined ? ' without a session id' : ''}`
  const initialized = encode({ jsonrpc: '2.0', method: 'notifications/initialized' })
  await send(
    'POST',
    recorded?.path ?? '/mcp',
    { ...rest, 'mcp-session-id': sessionId },
    initialized,
  )
  return {
    sessionId,
    with: original ? `the agent's initialize (exchange ${original.id})` : 'a minimal initialize',
  }
}

function encode(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value))
}
