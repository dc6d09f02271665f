/**
 * Why an attempt could not be sent, in two wordings: what the delivery log shows the endpoint's
 * owner, and what burrowd's own log keeps. Any user may register an endpoint at a name of their
 * choosing and make events for it, so the log they read must not say what burrowd's DNS answers
 * for it: "vm resolves to 10.0.0.7, a private address" against "getaddrinfo ENOTFOUND" mapped
 * the names burrowd's network can see, and their addresses (found by a hostile review). A name
 * that does not resolve and one that resolves only where webhooks are not sent read the same;
 * the details go to the operator's log. A refused IP literal is the user's own text: said as is.
 */
import { AddressRefusedError } from './url-guard.js'

/** The error codes of a name lookup that found nothing (getaddrinfo, c-ares, the guard's own). */
const NOT_RESOLVED = new Set([
  'ENOTFOUND',
  'ENODATA',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_NODATA',
  'EAI_FAIL',
  'ESERVFAIL',
  'EREFUSED',
  'ETIMEOUT',
  'EBADRESP',
  'EBADNAME',
  'ENOTIMP',
  'EFORMERR',
])

/** An attempt's failure as shown (`error`) and as logged (`detail`). */
export interface DeliveryError {
  readonly error: string
  readonly detail: string
}

/** The failure `error` of an attempt to `hostname`. */
export function deliveryError(error: unknown, hostname: string): DeliveryError {
  // Happy-eyeballs connects fail with an AggregateError whose own message is empty.
  const first: unknown = error instanceof AggregateError ? (error.errors[0] ?? error) : error
  if (first instanceof AddressRefusedError) {
    return first.forName ? unresolved(hostname, first.message) : same(first.message)
  }
  if (!(first instanceof Error)) return same(`could not send: ${String(first)}`)
  const code = (first as NodeJS.ErrnoException).code
  const text = `could not send: ${first.message !== '' ? first.message : (code ?? first.name)}`
  const lookup = (first as NodeJS.ErrnoException).syscall
  if (
    (code !== undefined && NOT_RESOLVED.has(code)) ||
    lookup === 'getaddrinfo' ||
    lookup === 'queryA' ||
    lookup === 'queryAaaa'
  ) {
    return unresolved(hostname, text)
  }
  return same(text)
}

function same(text: string): DeliveryError {
  return { error: text, detail: text }
}

function unresolved(hostname: string, detail: string): DeliveryError {
  return {
    error:
      `could not send: ${hostname} has no address webhooks are sent to (it does not resolve, ` +
      `or only to loopback, private or reserved addresses)`,
    detail,
  }
}
