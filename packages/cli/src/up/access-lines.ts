/**
 * What `burrow up` says about who may call its tunnel, from WELCOME's `access` (and NOTICE when the
 * owner changes it while connected): agents of an `oauth` tunnel sign in by themselves, those of a
 * `token` tunnel need an agent token in a header, a `public` tunnel needs no word. A broker older
 * than the field says nothing, and gets one line on what a 401 means. The mode and URL were
 * checked by the codec; the tunnel id is escaped here.
 */
import { accessHeaders, type AccessNote, type Welcome } from '@burrow/protocol'
import { printable } from '../printable.js'

/** What the lines are made from. */
export type AccessWelcome = Pick<Welcome, 'publicUrl' | 'tunnelId' | 'access'>

/** Under the 16-character labels (`Tunnel online:  `). */
const INDENT = ' '.repeat(16)

/** Headers the client snippet shows for `access`, if agents must send one. */
export function snippetHeaders(access: AccessNote | undefined): Record<string, string> | undefined {
  return accessHeaders(access?.mode)
}

/** The lines between "Forwarding to:" and the snippet; none for a public tunnel. */
export function accessLines(welcome: AccessWelcome): string[] {
  if (!welcome.access) {
    return [
      "If agents get 401: the tunnel's access mode (its Access tab in the dashboard) has them sign in with OAuth or send an agent token.",
    ]
  }
  const [first, ...rest] = explain(welcome.access, welcome.tunnelId)
  if (first === undefined) return []
  return [`Who may call:   ${first}`, ...rest.map((line) => INDENT + line)]
}

/** What `up` prints when the tunnel's access changed while it runs. */
export function accessChange(welcome: AccessWelcome): string {
  const access = welcome.access
  if (!access) return ''
  const [first, ...rest] =
    access.mode === 'public'
      ? [
          `anyone with the URL may call the tunnel now (access mode: public); agents need no sign-in or token.`,
        ]
      : explain(access, welcome.tunnelId)
  return `\nThe tunnel's access changed: ${first}\n${rest.map((line) => `${INDENT}${line}\n`).join('')}`
}

/** Where the owner manages access: its URL when the broker gave one. */
function tab(access: AccessNote): string {
  return access.url ?? "the tunnel's Access tab in the dashboard"
}

function explain(access: AccessNote, tunnelId: string): string[] {
  switch (access.mode) {
    case 'public':
      return []
    case 'oauth':
      return [
        'agents that sign in with OAuth (access mode: oauth).',
        'MCP clients (Claude, ChatGPT, Cursor, VS Code, the MCP SDKs) do it by themselves: their first',
        "call opens a browser where you sign in as the tunnel's owner and approve the client.",
        `Approved agents: ${tab(access)}`,
      ]
    case 'token':
      return [
        'agents that send an agent token (access mode: token),',
        'as the header "Authorization: Bearer atk_…" (the snippets below have it: put your token in).',
        `Make one on the tunnel's Access tab: ${tab(access)}`,
        `or with the API: POST /api/tunnels/${printable(tunnelId)}/agent-tokens (with a btk_ API token).`,
      ]
    default:
      return [
        `access mode: ${access.mode}, which this burrow does not know (a newer service).`,
        `What agents need is on the tunnel's Access tab: ${tab(access)}`,
      ]
  }
}
