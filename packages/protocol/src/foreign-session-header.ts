/**
 * The header `burrow up` adds to its `404 Session not found` when the session exists but was
 * opened by another agent (`oauth` and `token` tunnels tell agents apart): to that agent the
 * session is as unknown as any other id, but it has not ended, so the edge keeps counting it
 * against the tunnel's sessions. The edge never forwards the header to the agent (it would tell
 * the agent that the session exists).
 */
export const FOREIGN_SESSION_HEADER = 'burrow-foreign-session'
