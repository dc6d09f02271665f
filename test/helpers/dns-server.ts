// A real DNS server on loopback for tests (the `dns2` package over UDP): records live in a map
// the test changes as it goes, the way a user edits their zone.
import dns2 from 'dns2'

/** One record the server answers with. */
export type DnsRecord =
  | { readonly type: 'A'; readonly address: string }
  | { readonly type: 'AAAA'; readonly address: string }
  | { readonly type: 'CNAME'; readonly domain: string }
  | { readonly type: 'TXT'; readonly data: string }

/** A running server. */
export interface DnsServer {
  /** `127.0.0.1:<port>`, for `BURROW_DNS_SERVERS`. */
  readonly address: string
  /** Records by lower-case name; edit freely. */
  readonly records: Map<string, DnsRecord[]>
  close(): Promise<void>
}

const TYPES = { A: 1, CNAME: 5, TXT: 16, AAAA: 28 } as const

/** Start a DNS server on 127.0.0.1 and a free UDP port. */
export async function startDnsServer(): Promise<DnsServer> {
  const records = new Map<string, DnsRecord[]>()
  const { Packet } = dns2
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request)
      const question = request.questions[0]
      const name = (question?.name ?? '').toLowerCase()
      const found = records.get(name)
      if (!found) {
        response.header.rcode = 3 // NXDOMAIN
      } else {
        for (const r of found) {
          // A CNAME answers every type, as a resolver expects.
          if (TYPES[r.type] !== question?.type && r.type !== 'CNAME') continue
          const { type, ...data } = r
          response.answers.push({ name, type: TYPES[type], class: 1, ttl: 1, ...data } as never)
        }
      }
      void send(response)
    },
  })
  const listening = new Promise<void>((resolve) => server.once('listening', () => resolve()))
  void server.listen({ udp: { port: 0, address: '127.0.0.1' } })
  await listening
  const port = (server.addresses() as { udp: { port: number } }).udp.port
  return {
    address: `127.0.0.1:${port}`,
    records,
    close: () => server.close(),
  }
}
