/**
 * @burrow/protocol: what burrowd and burrow agree on, with no I/O. The tunnel frame codec and
 * multiplexer, MCP messages (mcp/: the JSON-RPC reader, classifier and refusal envelope) and
 * naming rules.
 */
export {
  PROTOCOL_VERSION,
  HEADER_BYTES,
  MAX_CHUNK_BYTES,
  MAX_META_BYTES,
  MAX_PATH_LENGTH,
  MAX_HEADER_PAIRS,
  MAX_CONTROL_BYTES,
  MAX_FRAME_BYTES,
  INITIAL_STREAM_WINDOW,
  INITIAL_CONNECTION_WINDOW,
  FRAME_TYPE,
  FLAG_FIN,
  RESET_CODE,
  GOAWAY_CODE,
} from './frame.js'
export type {
  AccessNote,
  Frame,
  GoawayCode,
  HeaderPairs,
  Hello,
  Notice,
  RequestHead,
  ResetCode,
  ResponseHead,
  Welcome,
} from './frame.js'
export { encodeFrame, decodeFrame } from './frame-codec.js'
export { FEATURE_NOTICE, MAX_ACCESS_URL, MAX_FEATURES } from './access-note.js'
export { requestHeadProblem, responseHeadProblem } from './head-limits.js'
export type { HeadProblem, HeadReserve } from './head-limits.js'
export { ProtocolError } from './protocol-error.js'
export type { ProtocolErrorCode } from './protocol-error.js'
export { TunnelMux, MAX_QUEUED_CONTROL_FRAMES } from './mux/tunnel-mux.js'
export { MAX_STREAM_WINDOW } from './mux/stream-credit.js'
export type { MuxRole, MuxTransport, TunnelMuxOptions } from './mux/tunnel-mux.js'
export { MuxStream, STREAM_QUEUE_HIGH } from './mux/mux-stream.js'
export type { DataReader } from './mux/mux-stream.js'
export { HOP_BY_HOP_HEADERS } from './hop-by-hop-headers.js'
export { FOREIGN_SESSION_HEADER } from './foreign-session-header.js'
export { WriteBatcher } from './write-batcher.js'
export type { Corkable } from './write-batcher.js'
export {
  labelProblem,
  hostLabelProblem,
  tunnelHostLabel,
  parseTunnelHostLabel,
  HOST_SEPARATOR,
  DNS_LABEL_MAX,
  UPSTREAM_NAME_PATTERN,
} from './names.js'
export {
  accessHeaders,
  AGENT_TOKEN_PLACEHOLDER,
  clientSnippet,
  snippetEntry,
  snippetEntryName,
} from './client-snippet.js'
export type { SnippetEntry } from './client-snippet.js'
export {
  refusal,
  refusalJson,
  POLICY_STATUS,
  ERROR_HEADER,
  JSONRPC_CODE,
  parseJsonRpcMessage,
  isRequest,
  isNotification,
  isResponse,
  errorResponse,
  answerKey,
  idKey,
  isJsonRpcId,
  isRecord,
  MODERN_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  DEFAULT_PROTOCOL_VERSION,
  BATCHING_PROTOCOL_VERSIONS,
  bodyProtocolVersion,
  eraOf,
  classifyMessage,
  foldMemberName,
  jsonRpcMessageOf,
  readJsonRpcBody,
  parseJsonRpcText,
  isBodyProblem,
  refusalIds,
  refusalIdsOf,
  DEFAULT_BODY_LIMITS,
  LargeNumberId,
  LARGE_ID_PROBLEM,
  MAX_EXACT_ID,
  isLargeNumberId,
  stringifyWithLargeIds,
  memberSpans,
  SseParser,
  SSE_PIECE_COST,
  ResponseMessages,
  responseKind,
  formatSseEvent,
  MODERN_PROTOCOL_VERSIONS,
  META_KEY,
  requestMetaOf,
  decodeHeaderValue,
  mirroredHeaderProblem,
  shapedAsResponse,
  parseLenientJson,
} from './mcp/index.js'
export type {
  PolicyCode,
  Refusal,
  RefusalBody,
  RefusedId,
  JsonRpcCode,
  JsonRpcId,
  JsonRpcRequest,
  JsonRpcNotification,
  JsonRpcResult,
  JsonRpcError,
  JsonRpcResponse,
  JsonRpcMessage,
  ProtocolEra,
  ClassifiedMessage,
  MessageTarget,
  JsonRpcBody,
  BodyProblem,
  BodyLimits,
  SseEvent,
  SseParserOptions,
  ResponseKind,
  ResponseMessagesOptions,
  HeldCopies,
  RequestMeta,
} from './mcp/index.js'
export { createLogger, silentLogger, isLogLevel } from './logger.js'
export { ownEntry } from './own-entry.js'
export { setOwnField } from './own-field.js'
export { ByteBlocks, KEPT_PIECE_BYTES } from './byte-blocks.js'
export type { LogLevel, Logger } from './logger.js'
