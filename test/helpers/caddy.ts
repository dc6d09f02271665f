// A real Caddy (Debian's `caddy`) in front of a burrowd for end-to-end tests: its internal CA
// signs the service zone's names and, through on-demand TLS, any name burrowd's TLS question
// (`/internal/tls-ask`) says yes to. Ports and storage are the test's own; nothing is trusted
// system-wide.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, fetch as undiciFetch } from 'undici'
import { startChild, type Child } from './child.js'
import { freePort } from './free-port.js'

/** The Caddy binary the tests run. */
export const CADDY = '/usr/bin/caddy'

/** A running Caddy. */
export interface Caddy {
  readonly httpsPort: number
  /** Caddy's internal root certificate (PEM), for clients that should trust it. */
  readonly rootCa: string
  /** `fetch` over HTTPS to this Caddy for any name, trusting only its root. */
  readonly fetch: typeof fetch
  readonly child: Child
  close(): Promise<void>
}

/**
 * Start Caddy on `httpsPort` (a free one by default), proxying `zone`, `*.zone` and on-demand
 * names to burrowd's `burrowdPort`.
 */
export async function startCaddy(
  burrowdPort: number,
  zone: string,
  httpsPort?: number,
): Promise<Caddy> {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-caddy-'))
  const httpPort = await freePort()
  httpsPort ??= await freePort()
  const upstream = `127.0.0.1:${burrowdPort}`
  const caddyfile = join(dir, 'Caddyfile')
  writeFileSync(
    caddyfile,
    `{
	admin off
	http_port ${httpPort}
	https_port ${httpsPort}
	storage file_system {
		root ${join(dir, 'data')}
	}
	skip_install_trust
	on_demand_tls {
		ask http://${upstream}/internal/tls-ask
	}
}

${zone}, *.${zone} {
	tls internal
	reverse_proxy ${upstream} {
		flush_interval -1
	}
}

https:// {
	tls internal {
		on_demand
	}
	reverse_proxy ${upstream} {
		flush_interval -1
	}
}
`,
  )
  const child = startChild(CADDY, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
    env: {
      ...process.env,
      HOME: dir,
      XDG_DATA_HOME: join(dir, 'xdg-data'),
      XDG_CONFIG_HOME: join(dir, 'xdg-config'),
    },
  })
  await child.waitFor(/serving initial configuration/, 30_000)
  const rootFile = join(dir, 'data/pki/authorities/local/root.crt')
  while (!existsSync(rootFile)) await new Promise((r) => setTimeout(r, 50))
  const rootCa = readFileSync(rootFile, 'utf8')
  const agent = new Agent({
    connect: {
      ca: rootCa,
      lookup: (_hostname, options, callback) => {
        if ((options as { all?: boolean }).all)
          callback(null, [{ address: '127.0.0.1', family: 4 }])
        else callback(null, '127.0.0.1', 4)
      },
    },
  })
  const tlsFetch = ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch
  return {
    httpsPort,
    rootCa,
    fetch: tlsFetch,
    child,
    async close() {
      await agent.close()
      await child.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
