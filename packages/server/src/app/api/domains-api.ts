/**
 * The custom-domain routes of the JSON API, for a tunnel the caller owns: list
 * (`GET /api/tunnels/:id/domains`), add (`POST …/domains` with `{"domain": "…"}`; 402
 * `plan_limit` on Free or beyond the plan's allowance), check the DNS now
 * (`POST …/domains/:domain/verify`) and remove (`DELETE …/domains/:domain`).
 */
import { HttpError } from '../../http/http-error.js'
import { readJsonObject } from '../../http/request-body.js'
import { sendApiJson } from '../../http/responses.js'
import type { DomainsPort } from '../domains-port.js'
import type { ApiCall } from './api-call.js'
import { domainJson } from './domains-json.js'

/** Longest domain accepted in a path (a DNS name is at most 253 characters). */
const MAX_DOMAIN_CHARS = 253

/** The domain routes; `port` is absent where burrowd runs without custom domains. */
export function domainsApi(port: DomainsPort | undefined) {
  const need = (): DomainsPort => {
    if (port === undefined)
      throw new HttpError(404, 'not_found', 'custom domains are not available')
    return port
  }
  return {
    async list(c: ApiCall, tunnelId: string): Promise<void> {
      const domains = await need().list(c.account.id, tunnelId)
      sendApiJson(c.res, 200, { domains: domains.map(domainJson) })
    },

    async add(c: ApiCall, tunnelId: string): Promise<void> {
      const body = await readJsonObject(c.req)
      if (typeof body.domain !== 'string') {
        throw new HttpError(
          400,
          'invalid',
          '"domain" must be a domain name such as mcp.example.com',
          {
            field: 'domain',
          },
        )
      }
      const added = await need().add(c.account.id, tunnelId, body.domain)
      sendApiJson(c.res, 201, domainJson(added))
    },

    async verify(c: ApiCall, tunnelId: string, raw: string): Promise<void> {
      const checked = await need().verify(c.account.id, tunnelId, domainParam(raw))
      if (checked === undefined) throw notFound()
      sendApiJson(c.res, 200, domainJson(checked))
    },

    async remove(c: ApiCall, tunnelId: string, raw: string): Promise<void> {
      if (!(await need().remove(c.account.id, tunnelId, domainParam(raw)))) throw notFound()
      sendApiJson(c.res, 204)
    },
  }
}

function notFound(): HttpError {
  return new HttpError(404, 'not_found', 'this tunnel has no such custom domain')
}

/** The domain of a path segment, decoded. */
function domainParam(raw: string): string {
  let domain: string
  try {
    domain = decodeURIComponent(raw)
  } catch {
    throw new HttpError(400, 'invalid', 'the domain in the path is not valid percent-encoding')
  }
  if (domain === '' || domain.length > MAX_DOMAIN_CHARS) throw notFound()
  return domain
}
