/** One authenticated call to the JSON API, as route handlers receive it. */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Caller } from '../session-auth.js'
import type { AccountView } from '../web-services.js'

/** A call to an API route: the request, the caller and its account, the route's captures. */
export interface ApiCall {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly caller: Caller
  readonly account: AccountView
  readonly params: readonly string[]
}
