/**
 * The "Run it" command of a new key names the tunnel as one word in every shell people paste it
 * into. The name is anyone's who can rename the tunnel (an API token's script; whoever held the
 * account before its owner took it back, whose names stay); quoted for sh alone, a name holding
 * a backslash ended fish's quotes early, and the rest of the name ran as commands.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { describe, it } from 'node:test'
import { keyOncePage } from '../../../src/app/dashboard/tunnels-page.js'

/** Whether `shell` is installed (fish often is not). */
function has(shell: string): boolean {
  try {
    execFileSync(shell, ['-c', 'true'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** The page's `burrow up` command for a tunnel named `name`, as the Copy button copies it. */
function command(name: string): string {
  const page = String(
    keyOncePage(
      { email: 'owner@example.com', slug: 'acme', csrfToken: 'csrf' },
      {
        id: 'tun_1',
        name,
        subdomain: 'files',
        publicUrl: 'https://files--acme.example.com',
        online: false,
        serving: true,
        pinned: false,
        createdAt: new Date('2026-01-01T00:00:00Z'),
        lastSeenAt: null,
        accessMode: 'oauth',
      },
      'mtk_key',
      true,
    ),
  )
  const text = /<pre id="up-command">([^<]*)<\/pre>/.exec(page)?.[1]
  assert.ok(text !== undefined, 'the page shows the command')
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
}

/** What `burrow` is given when `shell` runs the command: one line per argument. */
function argsIn(shell: 'bash' | 'fish', line: string): string[] {
  const define =
    shell === 'bash'
      ? 'burrow() { printf "%s\\n" "$@"; }'
      : 'function burrow; printf "%s\\n" $argv; end'
  const out = execFileSync(shell, ['-c', `${define}\n${line}`], { encoding: 'utf8' })
  return out.split('\n').slice(0, -1)
}

const NAMES = [
  "x\\' ; echo INJECTED ; #",
  "it's \\ $(echo INJECTED) `echo INJECTED` $HOME",
  'plain name',
  '\\',
  "'",
]

describe('the key page\'s "Run it" command', () => {
  for (const shell of ['bash', 'fish'] as const) {
    it(
      `gives ${shell} the tunnel's name as one argument, whatever it holds`,
      {
        skip: !has(shell),
      },
      () => {
        for (const name of NAMES) {
          const args = argsIn(shell, command(name))
          assert.deepEqual(args.slice(-2), ['--name', name], `${shell}: ${name}`)
          assert.ok(!args.includes('INJECTED'), `${shell} ran part of ${JSON.stringify(name)}`)
        }
      },
    )
  }
})
