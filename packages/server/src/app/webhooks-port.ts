/**
 * The dashboard's and API's view of an account's webhook endpoints, over the webhook module's
 * `WebhookEndpointStore`: one endpoint's page shows its signing secret, lists do not.
 */
import { StoreError } from '../store/store-error.js'
import type { WebhookEndpoint, WebhookEndpointStore } from '../webhooks/webhook-endpoint-store.js'
import type { WebhookEndpointView } from './webhook-endpoint-view.js'
import type { WebhooksPort } from './web-services.js'

function view(e: WebhookEndpoint, secret?: string): WebhookEndpointView {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    createdAt: e.createdAt,
    disabledAt: e.disabledAt,
    disabledReason: e.disabledReason,
    ...(secret !== undefined ? { secret } : {}),
  }
}

/** Undefined (or false) instead of `not_found`: another account's endpoint is simply absent. */
async function orAbsent<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work()
  } catch (err) {
    if (err instanceof StoreError && err.code === 'not_found') return undefined
    throw err
  }
}

/** `WebhooksPort` over the endpoint store. */
export function webhooksPort(endpoints: WebhookEndpointStore): WebhooksPort {
  return {
    create: async (accountId, input) => {
      const created = await endpoints.create(accountId, input)
      return view(created, created.secret)
    },
    list: async (accountId) => (await endpoints.list(accountId)).map((e) => view(e)),
    get: (accountId, id) =>
      orAbsent(async () =>
        view(await endpoints.get(accountId, id), await endpoints.revealSecret(accountId, id)),
      ),
    delete: async (accountId, id) =>
      (await orAbsent(() => endpoints.delete(accountId, id).then(() => true))) ?? false,
    enable: async (accountId, id) =>
      (await orAbsent(() => endpoints.enable(accountId, id).then(() => true))) ?? false,
    rotateSecret: (accountId, id) =>
      orAbsent(async () => {
        const { secret, previousExpiresAt } = await endpoints.rotateSecret(accountId, id)
        return {
          ...view(await endpoints.get(accountId, id), secret),
          previousSecretExpiresAt: previousExpiresAt,
        }
      }),
    deliveries: async (accountId, id) =>
      (await orAbsent(() => endpoints.deliveries(accountId, id))) ?? [],
  }
}
