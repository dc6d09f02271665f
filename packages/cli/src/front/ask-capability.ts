/**
 * Whether an agent can be asked a server's request (sampling, elicitation, roots): it must have
 * declared the capability the request needs, and for an elicitation its mode (MCP 2025-11-25): a
 * URL-mode one only to an agent that declared `elicitation.url` (`elicitation: {}` alone means
 * forms only), a form only to one that declared forms (`elicitation: {}` or `elicitation.form`).
 */
import { bridgedCapability } from './input-bridge.js'
import { askedUrlElicitation } from './url-elicitations.js'

/**
 * The capability `capabilities` lack for the server's request `method` with `params` (`sampling`,
 * `elicitation.url`, `elicitation.form`, …), or undefined when the agent can be asked it.
 */
export function missingAskCapability(
  method: string,
  params: Readonly<Record<string, unknown>> | undefined,
  capabilities: Readonly<Record<string, unknown>>,
): string | undefined {
  const needed = bridgedCapability(method)
  if (needed !== undefined && capabilities[needed] === undefined) return needed
  if (method !== 'elicitation/create') return undefined
  if (askedUrlElicitation(method, params) !== undefined) {
    return declaresElicitation(capabilities, 'url') ? undefined : 'elicitation.url'
  }
  return declaresElicitation(capabilities, 'form') ? undefined : 'elicitation.form'
}

/**
 * Whether declared client capabilities include elicitation in `mode`: named in `elicitation`, or
 * forms for an `elicitation` that names no mode (as before modes were named).
 */
function declaresElicitation(
  capabilities: Readonly<Record<string, unknown>>,
  mode: 'form' | 'url',
): boolean {
  const elicitation = capabilities.elicitation
  if (typeof elicitation !== 'object' || elicitation === null) return false
  const named = 'form' in elicitation || 'url' in elicitation
  return mode in elicitation || (mode === 'form' && !named)
}
