/**
 * Roots and the servers `burrow up` shares between agents: a stdio server (one child for every
 * agent session) and every upstream of an aggregate (one session of burrow's each). A client's
 * roots tell a server where it may work, and some servers act on them for everyone: the
 * reference filesystem server replaces the directories it was started with by its client's
 * roots, which it asks for after `initialized` and on `notifications/roots/list_changed`.
 * Relayed as they were, any agent the tunnel admits could set them for every agent (`file:///`
 * for the owner's `~/project`). So an agent's `roots/list_changed` does not reach such a server,
 * and its `roots/list` is answered by the agent whose call it came during (as sampling is), or,
 * with no call to tie it to, here with an error. A stdio server's `roots/list` that comes before
 * it answered the ping burrow sends right after `notifications/initialized` is taken for its
 * answer to that notification, and refused too, whatever call is in flight: an agent that sent
 * a call just before (or with) `initialized` was otherwise asked the roots the server then
 * applied for everyone (found by a hostile review). A lone HTTP server keeps its own session per
 * agent, and burrow relays what they say unchanged. docs/decisions.md, "Roots of a shared server".
 */

/** The server→client request asking a client for its roots. */
export const ROOTS_LIST = 'roots/list'

/** The agent notification a shared server is not sent. */
export const ROOTS_LIST_CHANGED = 'notifications/roots/list_changed'

/** Why a shared server's `roots/list` outside any call got an error. */
export const SHARED_ROOTS_REFUSAL =
  'burrow up shares this server between agents, and roots/list came during no call: no ' +
  "agent's roots are given to it, and the directories it was started with stay the ones it serves"

/** Why a stdio server's `roots/list` in answer to `notifications/initialized` got an error. */
export const SHARED_ROOTS_INITIALIZED_REFUSAL =
  'burrow up shares this server between agents, and roots/list came in answer to ' +
  "notifications/initialized, not during a call: no agent's roots are given to it, and the " +
  'directories it was started with stay the ones it serves'
