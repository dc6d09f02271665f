/**
 * Which masking keys `burrow up` puts on its WebSocket frames. RFC 6455 makes clients mask every
 * frame with a fresh key; the peer XORs it away again. The key does not hide anything (it travels
 * in the frame): it exists so that script in a browser cannot choose the exact bytes a
 * WebSocket puts on the wire, and so cannot make a transparent proxy that misreads the
 * connection cache a forged HTTP response (the 2011 cache-poisoning attack). Masking costs us a
 * copy of every frame, because `ws` will not mask a caller's buffer in place.
 *
 * The risk needs a man-in-the-middle that parses plain-text traffic and an attacker who picks
 * both the bytes and the server's answer. burrow is not a browser and only ever talks to the
 * broker it was pointed at, but part of what it sends (response bodies of local tools) can come
 * from third parties. So it uses an all-zero key (masking becomes a no-op, which the RFC allows a
 * client to choose) only where no intermediary can read the bytes: over TLS (`wss:`), where a
 * proxy sees ciphertext, and on the loopback interface, where there is no proxy. A plain `ws:`
 * connection to another host keeps random keys.
 */
import { isLoopbackHost } from '../loopback.js'

/** Fill `mask` with zeros: ws then skips masking and sends the caller's buffer as is. */
function zeroMask(mask: Buffer): void {
  mask.fill(0)
}

/**
 * The `generateMask` option for a WebSocket to `brokerUrl`: all-zero keys over TLS and on
 * loopback, undefined (ws's random keys) otherwise.
 */
export function frameMaskFor(brokerUrl: string): ((mask: Buffer) => void) | undefined {
  const url = new URL(brokerUrl)
  if (url.protocol === 'wss:' || url.protocol === 'https:') return zeroMask
  return isLoopbackHost(url.hostname) ? zeroMask : undefined
}
