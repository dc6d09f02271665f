/**
 * A webhook endpoint and its delivery log as the dashboard and the API show them: the signing
 * secret only where the owner looks at one endpoint.
 */

/** An endpoint as the dashboard and the API show it. */
export interface WebhookEndpointView {
  readonly id: string
  readonly url: string
  readonly events: readonly string[]
  /** The signing secret; present where the owner looks at one endpoint. */
  readonly secret?: string
  /** After a rotation: until when the secret it replaced signs deliveries too. */
  readonly previousSecretExpiresAt?: Date
  readonly createdAt: Date
  readonly disabledAt: Date | null
  readonly disabledReason: string | null
}

/** One delivery in the log. */
export interface WebhookDeliveryView {
  readonly id: string
  readonly type: string
  readonly status: string
  readonly attempts: number
  readonly createdAt: Date
  readonly lastAttemptAt: Date | null
  readonly lastStatus: number | null
  readonly lastError: string | null
  readonly nextAttemptAt: Date | null
}
