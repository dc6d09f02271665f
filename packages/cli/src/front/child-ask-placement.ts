/**
 * Where a stdio server's request to a client (sampling, elicitation, roots) goes: to the agent
 * `CallTable.askTarget` names, once that agent declared the capability the request needs (for an
 * elicitation, its mode: see ask-capability.ts) and has room for another question; otherwise the
 * refusal the server is answered with. A `roots/list` goes only to the agent whose call it came
 * during, never to the most recently active one, nor to any while the child may be answering
 * `notifications/initialized` with it (shared-server-roots.ts).
 */
import { JSONRPC_CODE, type JsonRpcId } from '@burrow/protocol'
import type { CallTable } from './call-table.js'
import { missingAskCapability } from './ask-capability.js'
import {
  ROOTS_LIST,
  SHARED_ROOTS_INITIALIZED_REFUSAL,
  SHARED_ROOTS_REFUSAL,
} from './shared-server-roots.js'
import type { StdioSession } from './stdio-session.js'

/** The session a request goes to (and the call it travels with), or why it goes to none. */
export type ChildAskPlacement =
  | { readonly session: StdioSession; readonly relatedTo?: JsonRpcId }
  | { readonly refusal: string; readonly code: number }

/** Where the child's request `method` (with `params`) goes among `sessions`. */
export function childAskPlacement(
  method: string,
  params: Readonly<Record<string, unknown>> | undefined,
  table: CallTable,
  sessions: Iterable<StdioSession>,
): ChildAskPlacement {
  // Whatever call is in flight, an agent could have put it there to be asked these roots.
  if (method === ROOTS_LIST && table.answeringInitialized) {
    return { refusal: SHARED_ROOTS_INITIALIZED_REFUSAL, code: JSONRPC_CODE.methodNotFound }
  }
  const target = table.askTarget(sessions)
  if (target === 'unplaced') {
    const refusal =
      `calls of several clients are in flight or were just cancelled, and a stdio server ` +
      `does not say which one ${method} is for; it was not sent to any`
    return { refusal, code: JSONRPC_CODE.internalError }
  }
  if (!target) {
    return {
      refusal: `no client is connected to answer ${method}`,
      code: JSONRPC_CODE.internalError,
    }
  }
  if (method === ROOTS_LIST && target.relatedTo === undefined) {
    return { refusal: SHARED_ROOTS_REFUSAL, code: JSONRPC_CODE.methodNotFound }
  }
  const needed = missingAskCapability(method, params, target.session.capabilities)
  if (needed !== undefined) {
    const refusal = `the client did not declare the "${needed}" capability ${method} needs`
    return { refusal, code: JSONRPC_CODE.methodNotFound }
  }
  const full = target.session.askRefusal()
  return full === null ? target : { refusal: full, code: JSONRPC_CODE.internalError }
}
