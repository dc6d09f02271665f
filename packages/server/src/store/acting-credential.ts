/**
 * The credential a request of the dashboard or the API acts with (a browser session or an API
 * token), checked again when the request changes its account. Identifying a caller happens when
 * its request arrives; its change can land much later (a slow body, a busy database), after the
 * credential was revoked: an earlier holder of an account, its sessions ended and its tokens
 * revoked by the address's owner, must not still make itself a new token or tunnel key. Every
 * change an account's lock guards (`lockAccount`) checks, inside the same transaction and so in
 * order with a revocation that holds the lock too, that the credential still exists.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Transaction } from 'kysely'
import { hashKey } from './hash-key.js'
import type { Database } from './schema.js'
import { StoreError } from './store-error.js'

/** A browser session (its cookie secret) or an API token (its id). */
export type ActingCredential =
  | { readonly kind: 'session'; readonly token: string }
  | { readonly kind: 'api_token'; readonly id: string }

const acting = new AsyncLocalStorage<ActingCredential>()

/** Run `fn` (a request's handler) acting with `credential`. */
export function actAs<T>(credential: ActingCredential, fn: () => Promise<T>): Promise<T> {
  return acting.run(credential, fn)
}

/**
 * Inside `trx`, holding account `accountId`'s lock: throw `StoreError` `unauthorized` when the
 * credential the current request acts with (if any) no longer exists for that account.
 */
export async function checkActingCredential(
  trx: Transaction<Database>,
  accountId: string,
): Promise<void> {
  const credential = acting.getStore()
  if (credential === undefined) return
  const found =
    credential.kind === 'session'
      ? await trx
          .selectFrom('web_sessions')
          .select('id')
          .where('id', '=', hashKey(credential.token))
          .where('account_id', '=', accountId)
          .executeTakeFirst()
      : await trx
          .selectFrom('api_tokens')
          .select('id')
          .where('id', '=', credential.id)
          .where('account_id', '=', accountId)
          .executeTakeFirst()
  if (found === undefined) {
    throw new StoreError(
      'unauthorized',
      credential.kind === 'session'
        ? 'this browser was signed out meanwhile; sign in again'
        : 'the API token was revoked meanwhile; create one in the dashboard under API tokens',
    )
  }
}
