/**
 * The rug-pull routes of the JSON API: a tunnel's pinned tools (`GET /api/tunnels/:id/tools`)
 * and the owner's decisions (`POST /api/tunnels/:id/tools/:name/approve` and `…/reject`, with
 * an optional `{"hash": "…"}` so that only the definition the owner saw is approved).
 */
import { MAX_PINNED_NAME_CHARS } from '../../governance/pinnable-name.js'
import { HttpError } from '../../http/http-error.js'
import { readJsonObject } from '../../http/request-body.js'
import { sendApiJson } from '../../http/responses.js'
import type { WebServices } from '../web-services.js'
import type { ApiCall } from './api-call.js'
import { changedBy } from './governance-api.js'
import { toolJson, toolsJson } from './tools-json.js'
import { STATUSES, type PinStatus } from '../../store/pin-rows.js'

/** The tool routes, for a tunnel the caller owns (`tunnelId`). */
export function toolsApi(svc: WebServices) {
  return {
    async list(c: ApiCall, tunnelId: string): Promise<void> {
      const [view, policy] = await Promise.all([
        svc.governance.tools(tunnelId),
        svc.governance.policy(tunnelId),
      ])
      sendApiJson(c.res, 200, toolsJson(tunnelId, view, policy.document))
    },

    async decide(
      c: ApiCall,
      tunnelId: string,
      rawName: string,
      decision: 'approved' | 'rejected',
    ): Promise<void> {
      const name = toolName(rawName)
      const body = await readJsonObject(c.req)
      const hash = body.hash
      if (hash !== undefined && (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash))) {
        throw new HttpError(400, 'invalid', '"hash" must be a definition hash this API gave', {
          field: 'hash',
        })
      }
      // The status reviewed: a removed tool has no hash, so without it an approval meant to
      // forget a removed tool approved one listed again under its name since.
      const status = body.status
      if (status !== undefined && !(STATUSES as readonly unknown[]).includes(status)) {
        throw new HttpError(400, 'invalid', `"status" must be one of ${STATUSES.join(', ')}`, {
          field: 'status',
        })
      }
      const done = await svc.governance.decideTool(
        tunnelId,
        name,
        decision,
        changedBy(c),
        hash ?? null,
        status as PinStatus | undefined,
      )
      if (done === 'unknown') {
        throw new HttpError(404, 'not_found', `this tunnel has no tool "${name}"`)
      }
      if (done === 'stale') {
        throw new HttpError(
          409,
          'conflict',
          `the definition or status of "${name}" changed since the hash or status you sent; review it again`,
        )
      }
      if (done === 'not_pending') {
        throw new HttpError(
          409,
          'conflict',
          `"${name}" is not changed, new or renamed: there is nothing to reject`,
        )
      }
      const [view, policy] = await Promise.all([
        svc.governance.tools(tunnelId),
        svc.governance.policy(tunnelId),
      ])
      const tool = view.tools.find((t) => t.name === name)
      // In zero-knowledge mode no definition is shown, even one kept from before the mode.
      const definitions = policy.document.zero_knowledge !== true
      sendApiJson(c.res, 200, tool ? toolJson(tool, definitions) : { name, status: 'forgotten' })
    },
  }
}

/** The tool name of a path segment, decoded. */
function toolName(raw: string): string {
  let name: string
  try {
    name = decodeURIComponent(raw)
  } catch {
    throw new HttpError(400, 'invalid', 'the tool name in the path is not valid percent-encoding')
  }
  // As long as a pinned name may be: a longer one names no tool (before, 512 here against 1,024
  // pinned left tools of 513 to 1,024 characters to the dashboard alone).
  if (name === '' || name.length > MAX_PINNED_NAME_CHARS) {
    throw new HttpError(404, 'not_found', 'this tunnel has no such tool')
  }
  return name
}
