/**
 * The requests routed to a tunnel other than by their hostname's label: a custom domain's
 * (domains/custom-domain-routing.ts). A failure of one is answered as the tunnel's own hostname
 * answers it, with the envelope and the call's id (http/answer-failure.ts); burrowd's request
 * handler, which knows only the label, took them for the app's and answered a plain page.
 */
import type { IncomingMessage } from 'node:http'

const routed = new WeakSet<IncomingMessage>()

/** `req` goes to a tunnel. */
export function noteTunnelRequest(req: IncomingMessage): void {
  routed.add(req)
}

/** Whether `req` was noted as going to a tunnel. */
export function isTunnelRequest(req: IncomingMessage): boolean {
  return routed.has(req)
}
