/**
 * The authorization server's metadata (RFC 8414) at `/.well-known/oauth-authorization-server`:
 * where each endpoint is, and what it supports (codes with PKCE S256, refresh tokens, public
 * clients, Client ID Metadata Documents).
 */
import { MCP_SCOPE } from '../../access/oauth/mcp-scope.js'

/** The metadata of the authorization server whose issuer is `issuer`. */
export function authorizationMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    scopes_supported: [MCP_SCOPE],
  }
}
