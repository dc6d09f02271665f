/**
 * The tunnel wire protocol between burrowd's broker and `burrow up`: frame types, flags, codes and
 * limits. One WebSocket binary message carries one frame:
 *
 *   type u8 | flags u8 | stream_id u32 BE | payload
 *
 * `frame-codec.ts` turns these into bytes and back; nothing else parses frames. The full
 * description is docs/protocol.md.
 */

/** Version spoken in HELLO/WELCOME. A peer refuses a version it does not know. */
export const PROTOCOL_VERSION = 1

/** Bytes before the payload: type, flags, stream id. */
export const HEADER_BYTES = 6

/** Largest DATA chunk, and largest body carried inline in OPEN or RESPONSE. */
export const MAX_CHUNK_BYTES = 64 * 1024

/** Largest JSON metadata block (request or response head) in OPEN/RESPONSE. */
export const MAX_META_BYTES = 16 * 1024

/** Longest request path (with its query) an OPEN carries, in characters. */
export const MAX_PATH_LENGTH = 8192

/** Most header pairs a request or response head carries. */
export const MAX_HEADER_PAIRS = 256

/** Largest HELLO/WELCOME/RST/GOAWAY payload. */
export const MAX_CONTROL_BYTES = 8 * 1024

/** Largest frame a peer may send; the WebSocket's maxPayload is set just above it. */
export const MAX_FRAME_BYTES = HEADER_BYTES + 2 + MAX_META_BYTES + MAX_CHUNK_BYTES

/** Credit each stream starts with, per direction (bytes of DATA). */
export const INITIAL_STREAM_WINDOW = 256 * 1024

/** Credit the whole connection starts with, per direction (bytes of DATA). */
export const INITIAL_CONNECTION_WINDOW = 16 * 1024 * 1024

/** Numeric frame types on the wire. */
export const FRAME_TYPE = {
  hello: 1,
  welcome: 2,
  open: 3,
  response: 4,
  data: 5,
  window: 6,
  rst: 7,
  ping: 8,
  pong: 9,
  goaway: 10,
  notice: 11,
} as const

/** Flag bit: the sender's direction of this stream ends with this frame. */
export const FLAG_FIN = 0x01

/** Why a stream was reset. */
export const RESET_CODE = {
  /** The receiver no longer wants the stream (agent hung up, caller aborted). */
  cancel: 1,
  /** The sender hit an unexpected error. */
  internal: 2,
  /** The stream broke a protocol rule. */
  protocol: 3,
  /** Refused before any processing (e.g. the client is draining); safe to retry. */
  refused: 4,
  /** The local upstream failed after the response started. */
  upstream: 5,
} as const
export type ResetCode = (typeof RESET_CODE)[keyof typeof RESET_CODE]

/** Why a peer is going away. */
export const GOAWAY_CODE = {
  /** Shutting down: finish in-flight streams, open no new ones. */
  drain: 0,
  /** Another connection with the same key took over this tunnel. Do not reconnect. */
  replaced: 1,
  /** The tunnel's key was revoked or rotated. Do not reconnect. */
  revoked: 2,
} as const
export type GoawayCode = (typeof GOAWAY_CODE)[keyof typeof GOAWAY_CODE]

/** A header list as sent: lower-case names, values as strings, order kept. */
export type HeaderPairs = readonly (readonly [string, string])[]

/** The head of a public request, carried by OPEN. */
export interface RequestHead {
  readonly method: string
  /** Path and query, always starting with `/`. */
  readonly path: string
  readonly headers: HeaderPairs
}

/** The head of a response, carried by RESPONSE. */
export interface ResponseHead {
  readonly status: number
  readonly headers: HeaderPairs
}

/** First frame from the CLI after the WebSocket opens. The key travels on the upgrade request. */
export interface Hello {
  readonly version: number
  /** Client software, e.g. `burrow/0.1.0`. */
  readonly agent: string
  /** Resume token from an earlier WELCOME, to keep the session (and not reprint the snippet). */
  readonly resume?: string
  /** Friendly tunnel name from `--name`. */
  readonly name?: string
  /**
   * What this client understands beyond version 1's frames (`notice`: it reads NOTICE). A broker
   * sends a client nothing it did not name; one that does not know a feature ignores it.
   */
  readonly features?: readonly string[]
}

/** Who may call a tunnel, as the broker tells its client (docs/protocol.md, Access). */
export interface AccessNote {
  /** `oauth`, `token` or `public`; a newer broker may send a mode this client does not know. */
  readonly mode: string
  /** Where the owner sees and changes it: the tunnel's Access tab in the dashboard. */
  readonly url?: string
}

/** Something about the tunnel changed while its client is connected (sent only to clients that name `notice`). */
export interface Notice {
  /** The tunnel's access, when that is what changed. */
  readonly access?: AccessNote
}

/** The broker's answer to HELLO. */
export interface Welcome {
  readonly version: number
  readonly tunnelId: string
  /** Public base URL without `/mcp`, e.g. `https://files--acme.example.com`. */
  readonly publicUrl: string
  /** Token to present in the next HELLO after a disconnect. */
  readonly resumeToken: string
  /** True when the HELLO's resume token was accepted: the same session continues. */
  readonly resumed: boolean
  /** Seconds the broker holds the tunnel after a disconnect. */
  readonly graceSecs: number
  /** Milliseconds between heartbeats the broker expects. */
  readonly heartbeatMs: number
  /** Who may call the tunnel now; absent from brokers older than the field. */
  readonly access?: AccessNote
}

/** A frame as it travels on the tunnel WebSocket. */
export type Frame =
  | { readonly type: 'hello'; readonly hello: Hello }
  | { readonly type: 'welcome'; readonly welcome: Welcome }
  | { readonly type: 'notice'; readonly notice: Notice }
  | {
      readonly type: 'open'
      readonly streamId: number
      readonly head: RequestHead
      readonly body?: Uint8Array
      readonly fin: boolean
    }
  | {
      readonly type: 'response'
      readonly streamId: number
      readonly head: ResponseHead
      readonly body?: Uint8Array
      readonly fin: boolean
    }
  | {
      readonly type: 'data'
      readonly streamId: number
      readonly chunk: Uint8Array
      readonly fin: boolean
    }
  | { readonly type: 'window'; readonly streamId: number; readonly credit: number }
  | {
      readonly type: 'rst'
      readonly streamId: number
      readonly code: ResetCode
      readonly reason: string
    }
  /**
   * A PING's opaque u64, and the PONG's echo of it: a number while it is a safe integer (as this
   * side's own are), else the exact bigint, so a peer's value comes back as it was sent.
   */
  | { readonly type: 'ping'; readonly payload: number | bigint }
  | { readonly type: 'pong'; readonly payload: number | bigint }
  | {
      readonly type: 'goaway'
      readonly lastStreamId: number
      readonly code: GoawayCode
      readonly reconnectAfterMs: number
    }
