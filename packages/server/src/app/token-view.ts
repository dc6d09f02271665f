/** An API token as the dashboard's tokens page and the JSON API list it. */

/** A token as listed (never its secret). */
export interface TokenView {
  readonly id: string
  readonly name: string
  readonly createdAt: Date
  readonly lastUsedAt: Date | null
}
