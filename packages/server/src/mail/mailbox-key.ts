/**
 * The mailbox an address most likely reaches, for bounding the mail burrowd sends it
 * (docs/decisions.md, "Mail allowances per mailbox"). Only a rate key: accounts are stored,
 * looked up and mailed by their address as written (`canonicalEmail`), and two people whose
 * addresses fold together here only share an allowance of mail.
 *
 * Every domain: lowercase (`canonicalEmail`), the local part cut at its first `+` (most
 * providers deliver `name+anything@` to `name@`) and its dots left out (Gmail ignores them, and
 * so do Google-hosted custom domains, which no list can name). Providers known to do more, below,
 * fold more: their other domains, other tag separators, other characters they ignore. Folding too
 * much costs two people a shared allowance; folding too little gives a stranger as many
 * allowances as spellings of one inbox.
 */
import { canonicalEmail } from './email-address.js'

/** What one provider reads as the same mailbox. */
interface Provider {
  /** The domain every domain of the provider folds to. */
  readonly domain: string
  /** Characters after which the provider ignores the rest of the local part, besides `+`. */
  readonly tags?: string
  /** Characters the provider ignores anywhere in the local part, besides `.`. */
  readonly ignored?: string
}

const GMAIL: Provider = { domain: 'gmail.com' }
/** Proton reads `first.last`, `first-last` and `first_last` as `firstlast`. */
const PROTON: Provider = { domain: 'proton.me', ignored: '-_' }
/** Yandex logins read `-` and `.` alike. */
const YANDEX: Provider = { domain: 'yandex.ru', ignored: '-' }
const ICLOUD: Provider = { domain: 'icloud.com' }

/** Providers by the domains they receive mail for, each an alias of its `domain`. */
const PROVIDERS: ReadonlyMap<string, Provider> = new Map([
  ['gmail.com', GMAIL],
  ['googlemail.com', GMAIL],
  ['proton.me', PROTON],
  ['protonmail.com', PROTON],
  ['protonmail.ch', PROTON],
  ['pm.me', PROTON],
  ['yandex.ru', YANDEX],
  ['yandex.com', YANDEX],
  ['yandex.by', YANDEX],
  ['yandex.kz', YANDEX],
  ['yandex.ua', YANDEX],
  ['yandex.com.tr', YANDEX],
  ['ya.ru', YANDEX],
  ['icloud.com', ICLOUD],
  ['me.com', ICLOUD],
  ['mac.com', ICLOUD],
  ['ymail.com', { domain: 'ymail.com', tags: '-' }],
  ['rocketmail.com', { domain: 'rocketmail.com', tags: '-' }],
])

/**
 * Yahoo's domains (`yahoo.com`, `yahoo.fr`, `yahoo.co.uk`, `yahoo.com.au`…, not Yahoo Japan's,
 * another company): `base-keyword@` disposable addresses reach the `base` mailbox, and Yahoo IDs
 * have no `-` of their own.
 */
const YAHOO = /^yahoo\.(?:[a-z]{2,3}|co\.[a-z]{2}|com\.[a-z]{2})$/

/** Fastmail's subdomain addressing: `anything@user.fastmail.com` reaches `user@fastmail.com`. */
const FASTMAIL_SUBDOMAIN = /^([^.]+)\.(fastmail\.(?:com|fm))$/

function providerOf(domain: string): Provider | undefined {
  const known = PROVIDERS.get(domain)
  if (known) return known
  if (YAHOO.test(domain) && domain !== 'yahoo.co.jp') return { domain, tags: '-' }
  return undefined
}

/**
 * The mailbox key of `email`: its `canonicalEmail` folded as its provider folds it (module
 * comment). Never an address to send to.
 */
export function mailboxKey(email: string): string {
  const canonical = canonicalEmail(email)
  const at = canonical.lastIndexOf('@')
  if (at < 0) return canonical
  let local = canonical.slice(0, at)
  let domain = canonical.slice(at + 1)
  const subdomain = FASTMAIL_SUBDOMAIN.exec(domain)
  if (subdomain) {
    local = subdomain[1]!
    domain = subdomain[2]!
  }
  const provider = providerOf(domain)
  const folded = fold(local, `+${provider?.tags ?? ''}`, `.${provider?.ignored ?? ''}`)
  return `${folded === '' ? local : folded}@${provider?.domain ?? domain}`
}

/** `local` cut at its first character of `tags` and without any of `ignored`. */
function fold(local: string, tags: string, ignored: string): string {
  let end = local.length
  for (const tag of tags) {
    const i = local.indexOf(tag)
    if (i >= 0 && i < end) end = i
  }
  let out = ''
  for (const char of local.slice(0, end)) if (!ignored.includes(char)) out += char
  return out
}
