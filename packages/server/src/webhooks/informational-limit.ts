/**
 * A bound on the interim (1xx) answers burrowd reads before the answer to a request it sends to
 * a host a user or a stranger chose (a webhook receiver, a client's metadata document). undici
 * parses each and goes on reading, so a host that answered with `103 Early Hints` without end
 * kept burrowd's thread busy for the whole deadline: 3.2 s of CPU in 5 s from one attempt, with
 * no byte of a body to bound (found by a hostile review). Past `MAX_INFORMATIONAL`, the request
 * is aborted; a receiver has no reason to send more than one or two.
 */

/** Interim answers read before the answer, at most. */
export const MAX_INFORMATIONAL = 8

/** Why a request was aborted for them. */
export class TooManyInformationalError extends Error {
  constructor() {
    super(`more than ${MAX_INFORMATIONAL} interim (1xx) answers before the answer`)
    this.name = 'TooManyInformationalError'
  }
}

/**
 * undici `request`'s `onInfo`, and the signal to abort the request with: aborted (its reason a
 * `TooManyInformationalError`) once more than `MAX_INFORMATIONAL` interim answers came.
 */
export function informationalLimit(): { onInfo: () => void; signal: AbortSignal } {
  const controller = new AbortController()
  let seen = 0
  return {
    onInfo: () => {
      if (++seen > MAX_INFORMATIONAL) controller.abort(new TooManyInformationalError())
    },
    signal: controller.signal,
  }
}
