// Reaching public tunnel URLs from tests: Node's resolver here does not map `*.localhost` to
// loopback, so an undici Agent answers every lookup with 127.0.0.1 and keeps the real Host.
import { Agent, fetch as undiciFetch } from 'undici'

/** An undici Agent that connects every hostname to 127.0.0.1. */
export const loopbackAgent = new Agent({
  connect: {
    lookup: (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) callback(null, [{ address: '127.0.0.1', family: 4 }])
      else callback(null, '127.0.0.1', 4)
    },
  },
})

/** `fetch` that reaches `http://<sub>--<slug>.localhost:PORT/…` on this machine. */
export const publicFetch = ((input: string | URL, init?: RequestInit) =>
  undiciFetch(input, { ...(init as object), dispatcher: loopbackAgent })) as unknown as typeof fetch
