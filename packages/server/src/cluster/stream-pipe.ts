/**
 * Joins two tunnel streams end to end, for a node that relays a request another node forwarded
 * to the tunnel it holds: the forwarded stream's request body goes into the stream opened to the
 * tunnel client, and that stream's response (head, body, end) back, each direction under its
 * own flow control (a slow reader on one side slows the writer on the other, nothing buffers
 * beyond a window), and a reset of either side resets the other.
 */
import { RESET_CODE, type MuxStream, type ResetCode } from '@burrow/protocol'

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
    other.reset(passed(code), reason)
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

/**
 * The code a reset crosses the pipe with: a cancel, a refusal (nothing was processed: the node
 * that forwarded the request sends it again, wherever the tunnel is now) and a lost connection
 * (the forwarding node says the tunnel client went away, as one node does) keep theirs; anything
 * else is the far side failing. Before, every code but a cancel became `upstream`: a request the
 * next node refused (it no longer held the tunnel) was answered 502 instead of sent again, and a
 * tunnel client gone mid-request was told the agent as its local server failing.
 */
function passed(code: number): ResetCode {
  return code === RESET_CODE.cancel || code === RESET_CODE.refused || code === RESET_CODE.internal
    ? code
    : RESET_CODE.upstream
}
