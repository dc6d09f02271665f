/**
 * The one OAuth scope burrowd's access tokens carry: a grant is for one tunnel, and the tunnel's
 * own policy governs its tools, so there is nothing finer to ask for. Named in the tokens, the
 * token responses, both metadata documents and the edge's 401 challenge (the MCP authorization
 * spec's scope selection: a client asks for what the challenge names).
 */
export const MCP_SCOPE = 'mcp'
