/**
 * `burrowd tunnel create`: add a tunnel to an account and mint its `mtk_` key. The key is
 * printed this once; the store keeps only its hash.
 */

import type { ServerConfig } from '../config.js'
import { publicPortFor, publicUrlFor } from '../public-url.js'
import { openStore } from '../store/open-store.js'
import { StoreError } from '../store/store-error.js'
import { TunnelAccessStore } from '../store/tunnel-access-store.js'
import type { TunnelCreateCommand } from './parse-operator-args.js'

const ACCESS_TEXT = {
  oauth: "oauth (agents sign in with the account owner's approval)",
  token: 'token (agents send an agent token made in the dashboard)',
  public: 'public (anyone with the URL may call it)',
} as const

/**
 * Create the tunnel `command` describes and return what to print on stdout: one JSON object
 * `{id, subdomain, public_url, key}` with `--json` (agents use `<public_url>/mcp`), else a
 * summary that says the key is shown only once. Throws `StoreError` for an unknown account or a
 * bad or taken subdomain, `ConfigError` when public URLs are unknown (listen port 0).
 */
export async function tunnelCreate(
  command: TunnelCreateCommand,
  config: ServerConfig,
): Promise<string> {
  // Refuse before creating anything if the URL to print cannot be known.
  publicPortFor(config)
  const store = await openStore(config)
  try {
    const account = await store.getAccountBySlug(command.account)
    if (account === undefined) {
      throw new StoreError(
        'not_found',
        `no account with slug "${command.account}"; create it first: burrowd account create --email E --slug ${command.account}`,
      )
    }
    const { tunnel, key } = await store.createTunnel({
      accountId: account.id,
      name: command.name,
      ...(command.subdomain === null ? {} : { subdomain: command.subdomain }),
    })
    await new TunnelAccessStore(store.db).set(tunnel.id, {
      mode: command.access,
      allowIps: command.allowIps,
    })
    const publicUrl = publicUrlFor(config, tunnel.subdomain, account.slug)
    if (command.json) {
      const access = { mode: command.access, allow_ips: command.allowIps }
      return (
        JSON.stringify({
          id: tunnel.id,
          subdomain: tunnel.subdomain,
          public_url: publicUrl,
          key,
          access,
        }) + '\n'
      )
    }
    const named = tunnel.name === null ? '' : ` "${tunnel.name}"`
    return [
      `Created tunnel${named} (${tunnel.id}) in account "${account.slug}".`,
      ``,
      `  MCP endpoint: ${publicUrl}/mcp`,
      `  Key:          ${key}`,
      `  Access:       ${ACCESS_TEXT[command.access]}`,
      ``,
      `The key is shown only this once; burrowd stores only its hash. Connect with:`,
      `  burrow up --api-key ${key} --upstream <your local MCP server URL>`,
      ``,
    ].join('\n')
  } finally {
    await store.close()
  }
}
