/**
 * Joins two tunnel streams end to end, for a node that relays a request another node forwarded
 * to the tunnel it holds: the forwarded stream's request body goes into the stream opened to the
 * tunnel client, and that stream's response (head, body, end) back, each direction under its
 * own flow control (a slow reader on one side slows the writer on the other, nothing buffers
 * beyond a window), and a reset of either side resets the other.
 */
import { RESET_CODE, type MuxStream } from '@burrow/protocol'

/**
 * Pipe `inbound` (a stream a peer opened: its request arrives, its response is ours to send)
 * to `outbound` (a stream we opened with the same request head: its response arrives).
 * `onDone` is called once, when the response has ended or either side was reset.
 */
export function pipeStreams(
  inbound: MuxStream,
  outbound: MuxStream,
  onDone: () => void = () => {},
): void {
  let done = false
  let reported = false
  const report = () => {
    if (reported) return
    reported = true
    onDone()
  }
  const resetOther = (other: MuxStream) => (code: number, reason: string) => {
    report()
    if (done) return
    done = true
    other.reset(code === RESET_CODE.cancel ? RESET_CODE.cancel : RESET_CODE.upstream, reason)
  }
  inbound.onReset = resetOther(outbound)
  outbound.onReset = resetOther(inbound)

  // Request body: inbound → outbound.
  inbound.read(
    (chunk) => outbound.write(chunk),
    () => outbound.end(),
  )
  outbound.onDrain = () => inbound.resumeReading()

  // Response: outbound → inbound.
  outbound.onResponse = (head, body, fin) => {
    inbound.respond(head, body, fin)
    if (fin) {
      done = true
      report()
    }
  }
  outbound.read(
    (chunk) => inbound.write(chunk),
    () => {
      done = true
      inbound.end()
      report()
    },
  )
  inbound.onDrain = () => outbound.resumeReading()
}
