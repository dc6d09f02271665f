/**
 * One JSON-RPC message, classified: request, notification or response (or invalid, with why), its
 * id and method, the tool, prompt or resource a call targets, and the protocol era its body
 * speaks. The edge counts and governs from this, the CLI routes and meters from it.
 */
import {
  isJsonRpcId,
  isRecord,
  type JsonRpcId,
  type JsonRpcMessage,
  parseJsonRpcMessage,
} from './json-rpc.js'
import { ownEntry } from '../own-entry.js'
import type { LargeNumberId } from './large-number-id.js'
import { bodyProtocolVersion, eraOf, type ProtocolEra } from './protocol-era.js'

/** What a `tools/call`, `prompts/get` or `resources/read` names. */
export interface MessageTarget {
  readonly kind: 'tool' | 'prompt' | 'resource'
  /** The tool or prompt name, or the resource URI. */
  readonly name: string
}

/** A message as classified. `value` is the object as it arrived. */
export type ClassifiedMessage =
  | {
      readonly kind: 'request'
      readonly id: JsonRpcId
      readonly method: string
      readonly target: MessageTarget | null
      readonly era: ProtocolEra
      /** `params._meta.protocolVersion`, or null. */
      readonly bodyVersion: string | null
      readonly value: Record<string, unknown>
    }
  | {
      readonly kind: 'notification'
      readonly method: string
      readonly target: MessageTarget | null
      readonly era: ProtocolEra
      readonly bodyVersion: string | null
      readonly value: Record<string, unknown>
    }
  | {
      readonly kind: 'response'
      /** Null in an error answer to unreadable input. */
      readonly id: JsonRpcId | null
      readonly error: boolean
      readonly value: Record<string, unknown>
    }
  | {
      readonly kind: 'invalid'
      /**
       * The id, when one could be read (so a refusal can carry it); a numeric id too large to
       * hold exactly is null here and a `LargeNumberId` where the text was read (json-rpc-body.ts).
       */
      readonly id: JsonRpcId | LargeNumberId | null
      /** The method, when one could be read. */
      readonly method: string | null
      /** What is wrong, as a sentence. */
      readonly problem: string
      readonly value: unknown
    }

const TARGET_PARAM: Readonly<Record<string, readonly ['tool' | 'prompt' | 'resource', string]>> = {
  'tools/call': ['tool', 'name'],
  'prompts/get': ['prompt', 'name'],
  'resources/read': ['resource', 'uri'],
  'resources/subscribe': ['resource', 'uri'],
  'resources/unsubscribe': ['resource', 'uri'],
}

/** Classify one untrusted value as a JSON-RPC message. Never throws. */
export function classifyMessage(value: unknown): ClassifiedMessage {
  const parsed = parseJsonRpcMessage(value)
  if (typeof parsed === 'string') {
    const record = isRecord(value) ? value : null
    return {
      kind: 'invalid',
      id: record && isJsonRpcId(record.id) ? record.id : null,
      method: record && typeof record.method === 'string' ? record.method : null,
      problem: parsed,
      value,
    }
  }
  const record = parsed as unknown as Record<string, unknown>
  if (!('method' in parsed)) {
    return { kind: 'response', id: parsed.id, error: 'error' in parsed, value: record }
  }
  const target = targetOf(parsed.method, parsed.params)
  if (target === undefined) {
    // A call with no name to check (none, or not a string: `["secret_tool"]`) is not valid MCP,
    // and a server that read it loosely would run a tool no policy looked at.
    const field = TARGET_PARAM[parsed.method]![1]
    return {
      kind: 'invalid',
      id: 'id' in parsed ? parsed.id : null,
      method: parsed.method,
      problem: `${parsed.method} needs params.${field} as a string`,
      value,
    }
  }
  const bodyVersion = bodyProtocolVersion(record)
  const common = {
    method: parsed.method,
    target,
    era: eraOf(parsed.method, bodyVersion),
    bodyVersion,
    value: record,
  }
  return 'id' in parsed
    ? { kind: 'request', id: parsed.id, ...common }
    : { kind: 'notification', ...common }
}

/** What a message names (null for a method that names nothing), or undefined when it must and does not. */
function targetOf(method: string, params: unknown): MessageTarget | null | undefined {
  const spec = ownEntry(TARGET_PARAM, method)
  if (!spec) return null
  const name = isRecord(params) ? params[spec[1]] : undefined
  return typeof name === 'string' ? { kind: spec[0], name } : undefined
}

/**
 * The message as the JSON-RPC type it was validated as (the object as it arrived), or null for an
 * invalid one: for code that routes messages rather than counts them.
 */
export function jsonRpcMessageOf(message: ClassifiedMessage): JsonRpcMessage | null {
  return message.kind === 'invalid' ? null : (message.value as unknown as JsonRpcMessage)
}
