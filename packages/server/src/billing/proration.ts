/**
 * What a subscription change costs, as Paddle's `update_summary` states it: a credit for the
 * unused time of the old price, a charge for the new price, and the result (charge or credit).
 * `PaddleClient` parses it from Paddle's preview; the dev provider's stand-in computes it the
 * way Paddle prorates (by the remaining share of the period, to the cent).
 */

/** A change's money, in cents of `currency`. */
export interface Proration {
  readonly currency: string
  readonly creditCents: number
  readonly chargeCents: number
  /** `charge` (the customer pays `amountCents` now) or `credit` (kept for later bills). */
  readonly action: 'charge' | 'credit'
  readonly amountCents: number
}

/** What a prorating stand-in needs to know about the period and the prices. */
export interface ProrationInput {
  readonly oldCents: number
  readonly newCents: number
  /** The current period; a change of billing interval starts a new one. */
  readonly periodStart: Date
  readonly periodEnd: Date
  readonly sameInterval: boolean
  readonly mode: string
  readonly now: Date
}

/**
 * Paddle's proration: the unused share of the period is credited at the old price; the new price
 * is charged for the same share (same interval) or in full (a new interval starts now). `full_*`
 * modes charge the new price in full without credit; `do_not_bill` bills nothing.
 */
export function prorate(input: ProrationInput): Proration {
  const length = input.periodEnd.getTime() - input.periodStart.getTime()
  const left = Math.max(0, input.periodEnd.getTime() - input.now.getTime())
  const share = length > 0 ? Math.min(1, left / length) : 0
  let credit = 0
  let charge = 0
  if (input.mode === 'prorated_immediately' || input.mode === 'prorated_next_billing_period') {
    credit = Math.round(input.oldCents * share)
    charge = input.sameInterval ? Math.round(input.newCents * share) : input.newCents
  } else if (input.mode === 'full_immediately' || input.mode === 'full_next_billing_period') {
    charge = input.newCents
  }
  const result = charge - credit
  return {
    currency: 'USD',
    creditCents: credit,
    chargeCents: charge,
    action: result >= 0 ? 'charge' : 'credit',
    amountCents: Math.abs(result),
  }
}

/** Paddle's `update_summary` object for `p`. */
export function updateSummaryEntity(p: Proration): Record<string, unknown> {
  const money = (cents: number) => ({ amount: String(cents), currency_code: p.currency })
  return {
    credit: money(p.creditCents),
    charge: money(p.chargeCents),
    result: { ...money(p.amountCents), action: p.action },
  }
}

/** The proration in Paddle's `update_summary`, or an error message when it is not one. */
export function parseUpdateSummary(value: unknown): Proration | string {
  if (typeof value !== 'object' || value === null) return 'update_summary is missing'
  const summary = value as Record<string, unknown>
  const cents = (name: string): number | string => {
    const money = summary[name] as Record<string, unknown> | null | undefined
    const amount = money?.amount
    if (typeof amount !== 'string' || !/^\d{1,12}$/.test(amount)) return `${name}.amount is missing`
    return Number(amount)
  }
  const credit = cents('credit')
  const charge = cents('charge')
  const amount = cents('result')
  if (typeof credit === 'string') return credit
  if (typeof charge === 'string') return charge
  if (typeof amount === 'string') return amount
  const result = summary.result as Record<string, unknown>
  const action = result.action
  if (action !== 'charge' && action !== 'credit') return 'result.action is not charge or credit'
  const currency = result.currency_code
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) {
    return 'result.currency_code is missing'
  }
  return { currency, creditCents: credit, chargeCents: charge, action, amountCents: amount }
}
