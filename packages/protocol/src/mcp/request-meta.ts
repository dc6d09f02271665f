/**
 * The request metadata of the sessionless revisions (2026-07-28 on): every request carries its
 * revision, the client's capabilities and (should carry) the client's identity in `params._meta`
 * under namespaced keys, and results and notifications use the same namespace. This file names
 * the keys and reads them; it decides nothing about what a missing key means.
 */
import { isRecord } from './json-rpc.js'

/** The `_meta` keys of the protocol's own namespace. */
export const META_KEY = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  /** On results: who answered. */
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  /** On `subscriptions/listen` notifications: the id of the listen request. */
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  /** On a request: the least severe log level the client wants while it runs. */
  logLevel: 'io.modelcontextprotocol/logLevel',
} as const

/** What a 2026-07-28 request says about its client. */
export interface RequestMeta {
  /** The revision, or null when absent or not a string. */
  readonly protocolVersion: string | null
  /** The declared capabilities, or null when absent or not an object. */
  readonly clientCapabilities: Readonly<Record<string, unknown>> | null
  /** The self-reported identity, or null. */
  readonly clientInfo: Readonly<Record<string, unknown>> | null
  /** The requested log level, or null. */
  readonly logLevel: string | null
}

/** The request metadata of `params` (a request's params, possibly absent). */
export function requestMetaOf(params: unknown): RequestMeta {
  const meta = isRecord(params) && isRecord(params._meta) ? params._meta : {}
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)
  const record = (value: unknown): Readonly<Record<string, unknown>> | null =>
    isRecord(value) ? value : null
  return {
    protocolVersion: text(meta[META_KEY.protocolVersion]),
    clientCapabilities: record(meta[META_KEY.clientCapabilities]),
    clientInfo: record(meta[META_KEY.clientInfo]),
    logLevel: text(meta[META_KEY.logLevel]),
  }
}
