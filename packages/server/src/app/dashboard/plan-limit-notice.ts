/**
 * The dashboard's notice for a refusal by the plan (`402 plan_limit`): the store's message, made
 * a sentence, with its own "upgrade your plan" (or "upgrade to Scale") as the link to billing,
 * instead of a second "Upgrade your plan" after it.
 */
import { html, type SafeHtml } from '../../http/html.js'

const UPGRADE = /upgrade (?:your plan|to [A-Z][a-z]+)/i

/** `message` as a notice whose upgrade phrase links to the billing page. */
export function planLimitNotice(message: string): SafeHtml {
  const text = message.charAt(0).toUpperCase() + message.slice(1)
  const end = /[.!?]$/.test(text) ? '' : '.'
  const found = UPGRADE.exec(text)
  if (!found) return html`${text}${end} <a href="/dashboard/billing">Upgrade your plan</a>.`
  const before = text.slice(0, found.index)
  const after = text.slice(found.index + found[0].length)
  return html`${before}<a href="/dashboard/billing">${found[0]}</a>${after}${end}`
}
