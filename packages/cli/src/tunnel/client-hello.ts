/**
 * The HELLO `burrow up` sends once its WebSocket is open: protocol version, client software, the
 * resume token of the session to keep, the friendly name, and the features it reads beyond
 * version 1's frames (`notice`: the broker may tell it the tunnel's access changed).
 */
import { FEATURE_NOTICE, PROTOCOL_VERSION, type Hello } from '@burrow/protocol'

/** The HELLO for a connection. */
export function clientHello(
  agent: string,
  resumeToken: string | undefined,
  name: string | null,
): Hello {
  return {
    version: PROTOCOL_VERSION,
    agent,
    ...(resumeToken ? { resume: resumeToken } : {}),
    ...(name ? { name } : {}),
    features: [FEATURE_NOTICE],
  }
}
