/**
 * What the dashboard and the JSON API need of custom domains, as one narrow port (built over the
 * domains feature in `domains/domains-web-port.ts`). Every call is scoped to an account.
 */

/** A DNS record the owner must create. */
export interface DomainRecordView {
  readonly type: 'TXT' | 'CNAME'
  readonly name: string
  readonly value: string
}

/** A custom domain as pages and the API show it. */
export interface DomainView {
  /** ASCII (punycode). */
  readonly domain: string
  /** As people read it (internationalised names decoded). */
  readonly unicode: string
  readonly state: 'pending' | 'verified'
  /** True when requests to it reach the tunnel now: verified and within the plan. */
  readonly serving: boolean
  /** `https://<domain>` (without `/mcp`). */
  readonly url: string
  readonly records: readonly DomainRecordView[]
  readonly createdAt: Date
  readonly checkedAt: Date | null
  readonly verifiedAt: Date | null
  /** What the last check found wrong, or why it does not serve. */
  readonly problem: string | null
}

/** Custom domains of one account's tunnels. Errors are StoreErrors fit to show. */
export interface DomainsPort {
  list(accountId: string, tunnelId: string): Promise<DomainView[]>
  add(accountId: string, tunnelId: string, domain: unknown): Promise<DomainView>
  /** Check the DNS now; undefined when the tunnel has no such domain. */
  verify(accountId: string, tunnelId: string, domain: string): Promise<DomainView | undefined>
  remove(accountId: string, tunnelId: string, domain: string): Promise<boolean>
  /** The custom URL (without `/mcp`) each tunnel of the account serves now, by tunnel id. */
  servingUrls(accountId: string): Promise<Map<string, string>>
}
