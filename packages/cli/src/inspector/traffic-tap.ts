/**
 * The inspector's tap: a RequestHandler that wraps the real one and records every exchange that
 * passes through it. Each write goes to the agent first and is copied to the recorder after, so
 * the agent gets the same bytes at the same moment as without the tap; nothing is held back or
 * buffered, and a failure while recording never reaches the traffic.
 */
import type { LocalRequest, LocalResponse, RequestHandler } from '../relay/local-exchange.js'
import type { ExchangeRecording } from './exchange-recording.js'
import type { TrafficRecorder } from './traffic-recorder.js'

/** Wrap `inner` so that `recorder` sees every request and its response as it streams. */
export function tapHandler(inner: RequestHandler, recorder: TrafficRecorder): RequestHandler {
  return {
    async handle(req: LocalRequest, res: LocalResponse): Promise<void> {
      let recording: ExchangeRecording
      try {
        recording = recorder.start(req)
      } catch {
        return inner.handle(req, res)
      }
      const onAbort = (): void => finish('aborted', 'the agent disconnected before the end')
      const finish = (state: 'complete' | 'failed' | 'aborted', error?: string): void => {
        req.signal.removeEventListener('abort', onAbort)
        quietly(() => recording.finish(state, error))
      }
      if (req.signal.aborted) finish('aborted', 'the agent disconnected before the end')
      else req.signal.addEventListener('abort', onAbort, { once: true })
      try {
        await inner.handle(req, teeResponse(res, recording, finish))
      } catch (err) {
        finish('failed', err instanceof Error ? err.message : String(err))
        throw err
      }
    },
    close: () => inner.close(),
  }
}

/** A LocalResponse that forwards to `res`, then tells `recording`. */
function teeResponse(
  res: LocalResponse,
  recording: ExchangeRecording,
  finish: (state: 'complete' | 'failed', error?: string) => void,
): LocalResponse {
  const tee: LocalResponse = {
    writeHead(status, headers) {
      res.writeHead(status, headers)
      quietly(() => recording.head(status, headers))
    },
    write(chunk) {
      const more = res.write(chunk)
      quietly(() => recording.chunk(chunk))
      return more
    },
    end() {
      res.end()
      finish('complete')
    },
    onDrain(cb) {
      res.onDrain(cb)
    },
    get closed() {
      return res.closed
    },
  }
  if (res.destroy) {
    const destroy = res.destroy.bind(res)
    tee.destroy = (reason: string): void => {
      destroy(reason)
      finish('failed', reason)
    }
  }
  return tee
}

/** Recording is best effort: its errors are swallowed so the agent's response is never hurt. */
function quietly(record: () => void): void {
  try {
    record()
  } catch {
    // Nothing useful to do; the exchange simply shows less.
  }
}
