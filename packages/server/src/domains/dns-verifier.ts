/**
 * Checks a custom domain's DNS with burrowd's own resolver (`BURROW_DNS_SERVERS` to choose the
 * servers; the system's otherwise): the TXT record `_burrow-challenge.<domain>` must hold the
 * domain's token, and the name must point at the service, by a CNAME to the tunnel's own host or
 * the service host, or by A/AAAA records that are the service host's addresses. A lookup the
 * resolver did not answer (timed out, refused, failed) proves nothing either way: a check that
 * fails only through such lookups is `unanswered`.
 */
import { Resolver } from 'node:dns/promises'

/** What the check found, for the dashboard and the API. */
export interface DnsFindings {
  readonly txtOk: boolean
  readonly targetOk: boolean
  /** What to fix, as sentences; empty when verified. */
  readonly problems: readonly string[]
  /**
   * True when the check failed only because lookups went unanswered (the resolver timed out or
   * failed): it says nothing about whether the records exist.
   */
  readonly unanswered: boolean
}

/** Errors that are the DNS's answer: the name, or records of that type, do not exist. */
const ANSWERS = new Set(['ENOTFOUND', 'ENODATA'])

/** Options of `new DnsVerifier`. */
export interface DnsVerifierOptions {
  /** `ip` or `ip:port` entries; empty for the system's resolvers. */
  readonly servers: readonly string[]
  /** Milliseconds a query may take. */
  readonly timeoutMs?: number
}

/** What a domain must point at. */
export interface DnsTarget {
  /** Host names a CNAME may name: the tunnel's host and the service host. */
  readonly hosts: readonly string[]
}

/** Resolves and checks custom domains. */
export class DnsVerifier {
  readonly #resolver: Resolver

  constructor(opts: DnsVerifierOptions) {
    this.#resolver = new Resolver({ timeout: opts.timeoutMs ?? 3000, tries: 2 })
    if (opts.servers.length > 0) this.#resolver.setServers([...opts.servers])
  }

  /** Check `domain` for `token` and `target`. Never rejects: lookups that fail are findings. */
  async verify(domain: string, token: string, target: DnsTarget): Promise<DnsFindings> {
    const problems: string[] = []
    const unanswered: string[] = []
    const txtName = `_burrow-challenge.${domain}`
    const txt = await this.#lookup(() => this.#resolver.resolveTxt(txtName), unanswered)
    const txtOk = Array.isArray(txt) && txt.some((chunks) => chunks.join('') === token)
    const txtUnanswered = unanswered.length > 0
    if (!txtOk) {
      problems.push(
        Array.isArray(txt)
          ? `the TXT record ${txtName} does not hold the token ${token}`
          : txtUnanswered
            ? `the DNS did not answer for ${txtName} (${txt}); it is checked again later`
            : `no TXT record at ${txtName} (${txt}); create it with the value ${token}`,
      )
    }
    const targetOk = await this.#pointsAtService(domain, target, unanswered)
    const targetUnanswered = unanswered.length > (txtUnanswered ? 1 : 0)
    if (!targetOk && targetUnanswered) {
      const codes = [...new Set(unanswered.slice(txtUnanswered ? 1 : 0))].join(', ')
      problems.push(
        `the DNS did not answer whether ${domain} points at the service (${codes}); ` +
          'it is checked again later',
      )
    } else if (!targetOk) {
      problems.push(
        `${domain} does not point at the service: add a CNAME to ${target.hosts[0]} ` +
          `(or A/AAAA records with the addresses of ${target.hosts[target.hosts.length - 1]})`,
      )
    }
    // Failed, and each failing part through a lookup the resolver did not answer.
    const failed = !txtOk || !targetOk
    const proven = (!txtOk && !txtUnanswered) || (!targetOk && !targetUnanswered)
    return { txtOk, targetOk, problems, unanswered: failed && !proven }
  }

  async #pointsAtService(
    domain: string,
    target: DnsTarget,
    unanswered: string[],
  ): Promise<boolean> {
    const hosts = target.hosts.map((h) => h.toLowerCase().replace(/\.$/, ''))
    const cname = await this.#lookup(() => this.#resolver.resolveCname(domain), unanswered)
    if (
      Array.isArray(cname) &&
      cname.some((c) => hosts.includes(c.toLowerCase().replace(/\.$/, '')))
    ) {
      return true
    }
    const mine = await this.#addresses(domain, unanswered)
    if (mine.size === 0) return false
    for (const host of hosts) {
      const theirs = await this.#addresses(host, unanswered)
      if ([...mine].every((a) => theirs.has(a))) return true
    }
    return false
  }

  async #addresses(name: string, unanswered: string[]): Promise<Set<string>> {
    const out = new Set<string>()
    for (const lookup of [
      () => this.#resolver.resolve4(name),
      () => this.#resolver.resolve6(name),
    ]) {
      const found = await this.#lookup(lookup, unanswered)
      if (Array.isArray(found)) for (const a of found) out.add(a)
    }
    return out
  }

  /**
   * The answer, or the error code as a string (ENOTFOUND, ENODATA, ETIMEOUT…); a code that is
   * not the DNS's answer is also added to `unanswered`.
   */
  async #lookup<T>(query: () => Promise<T>, unanswered: string[]): Promise<T | string> {
    try {
      return await query()
    } catch (err) {
      const code = (err as { code?: string }).code ?? (err as Error).message
      if (!ANSWERS.has(code)) unanswered.push(code)
      return code
    }
  }
}
