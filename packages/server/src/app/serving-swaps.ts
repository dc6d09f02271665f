/**
 * Which tunnels an owner's choice of serving tunnels swapped: after a downgrade an account has
 * more tunnels than its plan serves, and the owner picks those that serve
 * (`Store#chooseServingTunnels`). Each tunnel that starts serving takes the place of one that
 * stops, and carries on its month of usage (`quota/inherit-usage.ts`): the monthly quotas are per
 * tunnel, so otherwise swapping a fresh stopped tunnel in for one that used up its month gave
 * the account a new month as often as it liked, as many as it had tunnels (found by a hostile
 * review).
 */

/** A tunnel and whether it serves. */
export interface ServingState {
  readonly id: string
  readonly serving: boolean
}

/** A tunnel that started serving (`to`) in the place of one that stopped (`from`). */
export interface ServingSwap {
  readonly from: string
  readonly to: string
}

/** The swaps between the account's tunnels `before` and `after` a choice, paired in list order. */
export function servingSwaps(
  before: readonly ServingState[],
  after: readonly ServingState[],
): ServingSwap[] {
  const served = new Set(before.filter((t) => t.serving).map((t) => t.id))
  const serves = new Set(after.filter((t) => t.serving).map((t) => t.id))
  const stopped = [...served].filter((id) => !serves.has(id))
  const started = [...serves].filter((id) => !served.has(id))
  return started.flatMap((to, i) => {
    const from = stopped[i]
    return from === undefined ? [] : [{ from, to }]
  })
}
