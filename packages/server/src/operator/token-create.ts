/**
 * `burrowd token create`: an API token (`btk_…`) for automation, the same as one made in the
 * dashboard. The secret is printed this once; the store keeps only its hash.
 */
import type { ServerConfig } from '../config.js'
import { openStore } from '../store/open-store.js'
import { StoreError } from '../store/store-error.js'
import type { TokenCreateCommand } from './parse-operator-args.js'

/** Create the token and return what to print: `{id, token}` with `--json`, else a summary. */
export async function tokenCreate(
  command: TokenCreateCommand,
  config: ServerConfig,
): Promise<string> {
  const store = await openStore(config)
  try {
    const account = await store.getAccountBySlug(command.account)
    if (account === undefined) {
      throw new StoreError(
        'not_found',
        `no account with slug "${command.account}"; create it first: burrowd account create --email E --slug ${command.account}`,
      )
    }
    const { token, secret } = await store.apiTokens.create(account.id, command.name ?? 'operator')
    if (command.json) return `${JSON.stringify({ id: token.id, token: secret })}\n`
    return [
      `Created API token "${token.name}" (${token.id}) for account "${account.slug}".`,
      ``,
      `  Token: ${secret}`,
      ``,
      `It is shown only this once; burrowd stores only its hash. Use it as`,
      `  Authorization: Bearer ${secret}`,
      ``,
    ].join('\n')
  } finally {
    await store.close()
  }
}
