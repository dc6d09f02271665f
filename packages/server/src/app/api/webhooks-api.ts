/**
 * The outbound-webhook routes of the JSON API, for the caller's account: list and add endpoints
 * (`GET`/`POST /api/webhooks`, with `{"url": "…", "events": [...]}`), read and delete one
 * (`/api/webhooks/:id`), enable one again after it was disabled (`POST …/enable`), give it a new
 * signing secret (`POST …/rotate-secret`; the old one signs too for a day), and its delivery log
 * (`GET …/deliveries`).
 */
import { HttpError } from '../../http/http-error.js'
import { readJsonObject } from '../../http/request-body.js'
import { sendApiJson } from '../../http/responses.js'
import type { WebhooksPort } from '../web-services.js'
import type { ApiCall } from './api-call.js'
import { webhookDeliveryJson, webhookEndpointJson } from './api-json.js'
import { optionalString } from './optional-string.js'

/** The webhook routes; `:id` is the call's first path parameter. */
export function webhooksApi(webhooks: WebhooksPort) {
  const endpoint = async (c: ApiCall) => {
    const e = await webhooks.get(c.account.id, c.params[0] ?? '')
    if (!e) throw new HttpError(404, 'not_found', 'no such webhook endpoint in this account')
    return e
  }
  const get = async (c: ApiCall): Promise<void> => {
    sendApiJson(c.res, 200, webhookEndpointJson(await endpoint(c)))
  }
  return {
    async list(c: ApiCall): Promise<void> {
      sendApiJson(c.res, 200, {
        endpoints: (await webhooks.list(c.account.id)).map(webhookEndpointJson),
      })
    },

    async create(c: ApiCall): Promise<void> {
      const body = await readJsonObject(c.req)
      const url = optionalString(body, 'url') ?? ''
      const events = body.events
      if (
        events !== undefined &&
        (!Array.isArray(events) || !events.every((e): e is string => typeof e === 'string'))
      ) {
        throw new HttpError(
          400,
          'invalid',
          '"events" must be an array of event types such as "quota.warning"',
        )
      }
      const created = await webhooks.create(c.account.id, { url, ...(events ? { events } : {}) })
      sendApiJson(c.res, 201, webhookEndpointJson(created))
    },

    get,

    async remove(c: ApiCall): Promise<void> {
      const e = await endpoint(c)
      await webhooks.delete(c.account.id, e.id)
      sendApiJson(c.res, 204)
    },

    async enable(c: ApiCall): Promise<void> {
      const e = await endpoint(c)
      await webhooks.enable(c.account.id, e.id)
      await get(c)
    },

    async rotateSecret(c: ApiCall): Promise<void> {
      const rotated = await webhooks.rotateSecret(c.account.id, c.params[0] ?? '')
      if (!rotated)
        throw new HttpError(404, 'not_found', 'no such webhook endpoint in this account')
      sendApiJson(c.res, 200, webhookEndpointJson(rotated))
    },

    async deliveries(c: ApiCall): Promise<void> {
      const e = await endpoint(c)
      const list = await webhooks.deliveries(c.account.id, e.id)
      sendApiJson(c.res, 200, { deliveries: list.map(webhookDeliveryJson) })
    },
  }
}
