/**
 * How the edge shapes what an agent's GET stream carries: each event by the tunnel's policy as it
 * is when the event passes (live-policy.ts), not as it was when the stream opened, hours before
 * maybe. After the owner turns `hold` on, a new tool in a listing on the stream is left out; a
 * stream opened while rug-pull protection was off is watched once it is on; changed tool rules
 * and forwarded redaction apply from the next event.
 *
 * The stream's SSE events are read and written anew whatever the policy (an event the policy
 * leaves as it is still goes out as it was read): a stream passed as it came could not start
 * being checked in the middle of an event. Each chunk from the tunnel is shaped under one
 * policy, taken before it (the relay's gate), so every message of an event is judged by the same
 * one. An answer of another kind (a JSON refusal of the GET) is shaped by the policy its head
 * came under.
 */
import {
  ResponseMessages,
  type ClassifiedMessage,
  type HeldCopies,
  type ResponseKind,
  type ResponseMessagesOptions,
} from '@burrow/protocol'
import type { ExchangeRecord } from './exchange-record.js'
import { answerShaper, answerShaping } from './govern-request.js'
import type { LivePolicy } from './live-policy.js'

/** How one policy shapes the stream's events: null when it neither taps nor rewrites them. */
interface Shaping {
  readonly governance: LivePolicy['governance']
  readonly rug: LivePolicy['rug']
  readonly options: ResponseMessagesOptions | null
}

/**
 * The shaper of a GET's answer under `live`; `held` counts the copies of events (always as a
 * copy that rewrites), `listingPending` as `answerShaper`'s.
 */
export function streamShaper(
  live: LivePolicy,
  record: ExchangeRecord,
  held: ((rewriting: boolean) => HeldCopies) | null = null,
  listingPending: (() => boolean) | null = null,
): (kind: ResponseKind) => ResponseMessages | null {
  return (kind) => {
    if (kind !== 'sse') {
      const shape = answerShaper(live.governance, null, record, live.rug, held, listingPending)
      return shape?.(kind) ?? null
    }
    let shaping: Shaping | null = null
    /** What the policy taken last asks of the stream's events. */
    const now = (): ResponseMessagesOptions | null => {
      const { governance, rug } = live
      if (shaping === null || shaping.governance !== governance || shaping.rug !== rug) {
        const options =
          answerShaping(governance, null, record, rug, null, listingPending)?.('sse') ?? null
        shaping = { governance, rug, options }
      }
      return shaping.options
    }
    return new ResponseMessages({
      kind,
      rewrite: (m) => now()?.rewrite?.(m) ?? null,
      rewriteText: (text) => now()?.rewriteText?.(text) ?? null,
      shapedBy: now,
      onMessage: (m: ClassifiedMessage) => now()?.onMessage?.(m),
      onWithheld: (m) => record.answerWithheld(m),
      held: held?.(true) ?? null,
      onCut: () => record.answerCut(),
      // The policy may come to rewrite what passes: a stream the edge cannot read is not sent.
      mustRead: true,
      cutsOn: (m) => now()?.cutsOn?.(m) ?? false,
    })
  }
}
