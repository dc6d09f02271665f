/**
 * MCP messages without I/O: the one JSON-RPC body reader, the message classifier for every
 * protocol revision, the error-code table and the protocol eras. Re-exported by the package root.
 */
export { JSONRPC_CODE } from './json-rpc-codes.js'
export type { JsonRpcCode } from './json-rpc-codes.js'
export {
  parseJsonRpcMessage,
  isRequest,
  isNotification,
  isResponse,
  errorResponse,
  answerKey,
  idKey,
  isJsonRpcId,
  isRecord,
} from './json-rpc.js'
export type {
  JsonRpcId,
  JsonRpcRequest,
  JsonRpcNotification,
  JsonRpcResult,
  JsonRpcError,
  JsonRpcResponse,
  JsonRpcMessage,
} from './json-rpc.js'
export {
  MODERN_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSIONS,
  LEGACY_PROTOCOL_VERSIONS,
  DEFAULT_PROTOCOL_VERSION,
  BATCHING_PROTOCOL_VERSIONS,
  bodyProtocolVersion,
  eraOf,
} from './protocol-era.js'
export type { ProtocolEra } from './protocol-era.js'
export { META_KEY, requestMetaOf } from './request-meta.js'
export type { RequestMeta } from './request-meta.js'
export { decodeHeaderValue, mirroredHeaderProblem } from './mirrored-headers.js'
export { classifyMessage, jsonRpcMessageOf } from './classify-message.js'
export { foldMemberName } from './case-variants.js'
export type { ClassifiedMessage, MessageTarget } from './classify-message.js'
export {
  readJsonRpcBody,
  parseJsonRpcText,
  isBodyProblem,
  refusalIds,
  refusalIdsOf,
  shapedAsResponse,
  DEFAULT_BODY_LIMITS,
} from './json-rpc-body.js'
export type { JsonRpcBody, BodyProblem, BodyLimits } from './json-rpc-body.js'
export { parseLenientJson } from './lenient-json.js'
export {
  LargeNumberId,
  LARGE_ID_PROBLEM,
  MAX_EXACT_ID,
  isLargeNumberId,
  stringifyWithLargeIds,
} from './large-number-id.js'
export { memberSpans } from './json-member-text.js'
export { SseParser, SSE_PIECE_COST } from './sse-parser.js'
export { ResponseMessages } from './response-messages.js'
export { responseKind, type ResponseKind } from './response-kind.js'
export { formatSseEvent } from './format-sse-event.js'
export type { HeldCopies, ResponseMessagesOptions } from './response-messages-options.js'
export type { SseEvent, SseParserOptions } from './sse-parser.js'
export { refusal, refusalJson, POLICY_STATUS, ERROR_HEADER } from './refusal.js'
export type { PolicyCode, Refusal, RefusalBody, RefusedId } from './refusal.js'
