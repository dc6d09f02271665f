/**
 * `burrowd account create`: add a customer account from the command line (self-hosting, tests,
 * support). Prints the account as JSON or as a sentence with the next step. The address counts
 * as verified: the operator vouches for it, so the owner's first password reset (the way in for
 * an account made without a password) keeps what the operator made, tunnel keys included.
 */

import type { ServerConfig } from '../config.js'
import { openStore } from '../store/open-store.js'
import type { AccountCreateCommand } from './parse-operator-args.js'

/**
 * Create the account `command` describes and return what to print on stdout: one JSON object
 * `{id, email, slug, plan}` with `--json`, else a friendly summary. With `--password-stdin` the
 * password is `input` up to its first line break. Throws `StoreError` for an invalid or taken
 * slug or email, or a password the sign-up form would refuse.
 */
export async function accountCreate(
  command: AccountCreateCommand,
  config: ServerConfig,
  input: NodeJS.ReadableStream = process.stdin,
): Promise<string> {
  const password = command.passwordStdin ? await firstLine(input) : undefined
  const store = await openStore(config)
  try {
    const account = await store.createAccount({
      email: command.email,
      slug: command.slug,
      plan: command.plan,
      ...(password === undefined ? {} : { password }),
    })
    await store.accountTokens.markVerified(account.id, account.email)
    if (command.json) {
      const { id, email, slug, plan } = account
      return JSON.stringify({ id, email, slug, plan }) + '\n'
    }
    return (
      `Created account "${account.slug}" (${account.id}) for ${account.email} on the ${account.plan} plan.\n` +
      `Next, create a tunnel: burrowd tunnel create --account ${account.slug} --name <name>\n`
    )
  } finally {
    await store.close()
  }
}

/** Everything `input` carries up to its first line break (at most 64 KiB are read). */
async function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = ''
  for await (const chunk of input) {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
    if (text.includes('\n') || text.length > 64 * 1024) break
  }
  return text.split(/\r?\n/, 1)[0] ?? ''
}
