// Prometheus text parsed by an independent parser (`parse-prometheus-text-format`), so tests
// check that what burrowd serves is valid exposition text, not only that it contains a name.
import { createRequire } from 'node:module'

/** One metric family as the parser gives it. */
export interface MetricFamily {
  readonly name: string
  readonly help: string
  readonly type: string
  readonly metrics: readonly {
    readonly value?: string
    readonly labels?: Record<string, string>
    readonly buckets?: Record<string, string>
    readonly count?: string
  }[]
}

const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => MetricFamily[]

/** Parse exposition text; throws on what is not Prometheus text. */
export function parsePrometheus(text: string): MetricFamily[] {
  return parse(text)
}
