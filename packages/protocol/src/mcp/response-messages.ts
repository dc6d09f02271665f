/**
 * The JSON-RPC messages of a response as it streams from a server to an agent: a JSON body (one
 * message or a batch) or an SSE stream (one message per event). Taps see every message; a rewrite
 * may replace messages (filter a `tools/list`, mask secrets) without buffering a stream: SSE is
 * rewritten event by event, JSON once its body is complete (bounded; past the bound it is
 * `overflowed` and the caller decides). A body of another type (an error page) is held and read
 * whole like JSON when there is text to redact (`rewriteText`), and otherwise passes untouched.
 *
 * The copy a response keeps (a JSON body until it ends, the SSE event being read) is counted in
 * `held`, the caller's bound across responses. When it refuses more, the copy stops: a JSON body
 * is `overflowed` as past its own bound, the SSE event being read is dropped when events are
 * rewritten, and a stream only tapped is no longer tapped (its bytes still pass); `onCut` is told.
 * What was counted is given back when the body ends, or at `release`. A message `cutsOn` refuses
 * (a listing's answer on the response of a request that made none) cuts the answer off before
 * the agent can read that message whole: `cut`.
 */
import { classifyMessage, type ClassifiedMessage } from './classify-message.js'
import { isBodyProblem, namesMemberTwice, parseJsonRpcText } from './json-rpc-body.js'
import { escapeLineSplits, formatSseEvent, KEEP_ALIVE } from './format-sse-event.js'
import { parseLenientJson } from './lenient-json.js'
import type { ResponseMessagesOptions } from './response-messages-options.js'
import { SseFieldRewriter } from './rewritten-sse-fields.js'
import { unwritable } from './unwritable-answer.js'
import { SseParser, type SseEvent } from './sse-parser.js'
import { ByteBlocks } from '../byte-blocks.js'

const encoder = new TextEncoder()
/** What ends an event, as a reader would add it at the end of a stream. */
const ENDS = encoder.encode('\n\n')
const decoder = new TextDecoder()
/** True when `chunk` holds nothing but JSON's whitespace (a JSON value cannot end in it). */
const jsonWhitespace = (chunk: Uint8Array): boolean =>
  chunk.every((b) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09)

/** One response's messages. */
export class ResponseMessages {
  readonly #opts: ResponseMessagesOptions
  readonly #max: number
  #sse: SseParser | null
  /** The body held until it ends: JSON, or another type read as text to redact (or null). */
  #body: ByteBlocks | null
  #bodyBytes = 0
  #overflowed = false
  #overBudget = false
  #unparsed = false
  /** Whether an SSE event's data was not JSON: later ones are checked before they are parsed. */
  #metBroken = false
  #released = false
  #cut = false
  /**
   * With `cutsOn`, the last chunk of a JSON body only tapped, held back until the next that is
   * not whitespace only, with the chunks of whitespace after it: the JSON may end in it.
   */
  #last = new ByteBlocks()
  /** Bytes counted in `held` now. */
  #held = 0
  /** Written whole though nothing rewrites it: SSE events once complete, JSON once read. */
  #whole = false
  #fields: SseFieldRewriter | null = null

  constructor(opts: ResponseMessagesOptions) {
    this.#opts = opts
    this.#max = opts.maxJsonBytes ?? 16 * 1024 * 1024
    this.#sse = opts.kind === 'sse' ? new SseParser() : null
    this.#body = opts.kind === 'json' || this.readsText ? new ByteBlocks() : null
  }

  /**
   * True when a JSON body passed the bound, or `held` refused to count more of it: it was
   * neither tapped whole nor rewritten.
   */
  get overflowed(): boolean {
    return this.#overflowed
  }

  /** True when a JSON body, read whole, turned out not to be JSON-RPC. */
  get unparsed(): boolean {
    return this.#unparsed
  }

  /**
   * True once a message `cutsOn` refuses was read: nothing more is given to send, and what was
   * sent must not be completed (the caller ends the answer short, or refuses it if none went).
   */
  get cut(): boolean {
    return this.#cut
  }

  /** True when the copy stopped because `held` refused to count more (not for its own size). */
  get overBudget(): boolean {
    return this.#overBudget
  }

  /** Bytes of this response counted in `held` now. */
  get held(): number {
    return this.#held
  }

  /** The response is over (answered, failed or abandoned): drop the copy, give its bytes back. */
  release(): void {
    this.#released = true
    this.#body = null
    this.#last = new ByteBlocks()
    this.#sse = null
    this.#give()
  }

  /** True when the messages may be rewritten (then none may pass unchecked). */
  get rewrites(): boolean {
    return this.#opts.rewrite != null
  }

  /** True when an answer whose messages cannot be read may not pass (rewritten, or watched). */
  get mustRead(): boolean {
    return this.#opts.mustRead ?? this.#opts.rewrite != null
  }

  /** True when some messages are cut off (`cutsOn`). */
  get cutsStrays(): boolean {
    return this.#opts.cutsOn != null
  }

  /** True when a body of another type is read whole as text, to be redacted (`rewriteText`). */
  get readsText(): boolean {
    return (
      this.#opts.kind === 'other' && this.#opts.rewrite != null && this.#opts.rewriteText != null
    )
  }

  /**
   * True when a JSON body only tapped holds back its last chunk (`cutsOn`): until a second chunk
   * comes, nothing of it was given to send, so the caller may still refuse it whole.
   */
  get holdsLast(): boolean {
    return (
      this.#body !== null &&
      !this.#opts.rewrite &&
      !this.#whole &&
      this.#opts.cutsOn != null &&
      !this.#overflowed
    )
  }

  /** True when bytes are held until the body ends (a JSON body being rewritten, or written whole). */
  get holdsBody(): boolean {
    return this.#body !== null && (this.#opts.rewrite != null || this.#whole) && !this.#overflowed
  }

  /** True when told to `writeWhole`: a JSON body past the bounds cannot be sent either. */
  get writesWhole(): boolean {
    return this.#whole
  }

  /**
   * Give SSE events to send only once each is complete, written anew as a rewritten stream's are,
   * and a JSON body only once read whole and checked, though nothing rewrites them. For an agent
   * whose answer ends where its connection closes (HTTP/1.0): an answer cut short would look
   * whole to it, and the part it got (a listing lacking only its blank line, or a JSON answer
   * lacking only a byte after it) could be read. Call it before the first `push`.
   */
  writeWhole(): void {
    if (this.#opts.kind !== 'other') this.#whole = true
  }

  /** Feed a chunk from the server; returns what to send the agent now. */
  push(chunk: Uint8Array): Uint8Array[] {
    if (this.#cut) return []
    if (this.#released && this.#opts.rewrite) return [] // nothing unchecked after the end
    const parser = this.#sse
    if (parser) {
      const skipping = parser.discarding
      const dropped = parser.dropped
      const events = parser.push(chunk)
      const unread = skipping || parser.discarding || parser.dropped !== dropped
      return this.#events(events, chunk, unread)
    }
    if (this.#body === null || this.#overflowed) return this.#unread(chunk)
    this.#bodyBytes += chunk.length
    const fits = this.#bodyBytes <= this.#max
    if (!fits || !this.#take(chunk.length)) {
      this.#overflowed = true
      this.#overBudget = fits
      const last = this.#last
      const held = this.#opts.rewrite || this.#whole ? this.#body.chunks : last.chunks
      this.#body = null
      this.#last = new ByteBlocks()
      this.#give()
      this.#opts.onCut?.()
      if (this.#opts.rewrite || this.#whole || !this.#opts.cutsOn) return [...held, chunk]
      this.#last = last // the end is still held back, for the check at the end
      return this.#unread(chunk)
    }
    this.#body.push(chunk)
    if (this.#opts.rewrite || this.#whole) return []
    if (!this.#opts.cutsOn) return [chunk]
    if (this.#last.length > 0 && jsonWhitespace(chunk)) {
      this.#last.push(chunk)
      return []
    }
    return this.#holdBack(chunk)
  }

  /** Hold `chunk` back, giving what was held (its whitespace after it is copied into blocks). */
  #holdBack(chunk: Uint8Array): Uint8Array[] {
    const before = this.#last.chunks
    this.#last = new ByteBlocks()
    this.#last.keep(chunk)
    return before
  }

  /** The server's body ended; returns what is left to send. */
  end(): Uint8Array[] {
    const parser = this.#sse
    if (parser) {
      // Some readers dispatch the event a stream ends in without its blank line (httpx, after a
      // lone CR): one passed as it came is checked as if ended, and cut if it must be.
      const unended =
        this.#opts.cutsOn && !this.#opts.rewrite && !this.#whole && !parser.atBoundary
          ? parser.push(ENDS)
          : []
      const out = this.#events([...unended, ...parser.end()], null, false)
      this.release()
      return out
    }
    if (this.#body === null) {
      // A JSON body that passed its bound unread ends with the chunk it held back.
      const last = this.#last
      this.#last = new ByteBlocks()
      this.#give()
      if (last.length === 0) return []
      if (this.#opts.cutsUnread?.()) {
        this.#cut = true
        return []
      }
      return last.chunks
    }
    const body = this.#body
    const last = this.#last
    this.release()
    const bytes = body.bytes()
    if (bytes.length === 0) return [] // nothing to read, nothing that could be read otherwise
    const rewritten = this.#messages(decoder.decode(bytes), bytes)
    if (this.#cut) return []
    if (!this.#opts.rewrite) return this.#whole ? [bytes] : last.chunks
    return [rewritten === null ? bytes : encoder.encode(rewritten)]
  }

  /**
   * Count what the SSE parser holds after a chunk. Past the bound, the event being read is
   * dropped when events are rewritten (it cannot be checked, so it is not sent, as an event past
   * the parser's own bound); a stream only tapped is no longer tapped.
   */
  #countSse(parser: SseParser): void {
    const now = parser.heldChars
    if (now <= this.#held) {
      this.#opts.held?.give(this.#held - now)
      this.#held = now
      return
    }
    if (this.#take(now - this.#held)) return
    this.#overBudget = true
    this.#opts.onCut?.()
    if (this.#opts.rewrite || this.#whole) parser.discard()
    else this.#sse = null
    this.#give()
  }

  /** Count `bytes` more of the copy; false when `held` refuses. */
  #take(bytes: number): boolean {
    if (bytes <= 0) return true
    if (this.#opts.held && !this.#opts.held.take(bytes)) return false
    this.#held += bytes
    return true
  }

  /**
   * Whether `text`, read as lenient agents read JSON (NaN, Infinity), holds a message to cut.
   * Each is offered as invalid, which it is: nothing the edge checks could read it.
   */
  #cutsLenient(text: string): boolean {
    const value = parseLenientJson(text)
    if (typeof value !== 'object' || value === null) return false
    const cutsOn = this.#opts.cutsOn!
    const offered = (v: unknown): boolean => {
      const m = classifyMessage(v)
      const invalid: ClassifiedMessage = {
        kind: 'invalid',
        id: m.kind === 'invalid' || m.kind === 'response' ? m.id : null,
        method: m.kind === 'invalid' ? m.method : null,
        problem: 'not valid JSON (NaN or Infinity)',
        value: v,
      }
      return cutsOn(invalid)
    }
    return Array.isArray(value) ? value.some(offered) : offered(value)
  }

  /**
   * What to send of a chunk the copy does not read (past a bound, or of a body it never reads):
   * with `cutsOn`, a JSON body's last chunk stays held back, and an SSE chunk is cut when
   * `cutsUnread` says so.
   */
  #unread(chunk: Uint8Array): Uint8Array[] {
    if (!this.#opts.cutsOn || this.#opts.rewrite || this.#released) return [chunk]
    if (this.#opts.kind === 'json') {
      if (this.#last.length > 0 && jsonWhitespace(chunk)) {
        // Held with the chunk before it, and counted: a server could send it without end.
        if (this.#take(chunk.length)) {
          this.#last.push(chunk)
          return []
        }
        if (this.#opts.cutsUnread?.()) {
          this.#cut = true
          return []
        }
      }
      this.#give()
      return this.#holdBack(chunk)
    }
    if (this.#opts.kind === 'sse' && this.#opts.cutsUnread?.()) {
      this.#cut = true
      return []
    }
    return [chunk]
  }

  #give(): void {
    if (this.#held > 0) this.#opts.held?.give(this.#held)
    this.#held = 0
  }

  /**
   * Tap and rewrite SSE events (`raw`: the chunk as it came). Rewritten, every event is written
   * anew, its id and name through `rewriteText` too; a chunk ending between events having completed
   * none gets an empty comment (an idle stream shows it is alive); a block without data does not.
   */
  #events(events: readonly SseEvent[], raw: Uint8Array | null, unread: boolean): Uint8Array[] {
    if (this.#sse && raw) this.#countSse(this.#sse)
    if (!this.#opts.rewrite && !this.#whole) {
      for (const e of events) if (e.data !== '') this.#messages(e.data)
      // The chunk that completes an event to cut is not sent: the agent never reads it whole.
      if (this.#cut) return []
      if (!raw) return []
      // Part of an event past the parser's bound, unread: cut when it may not pass.
      return unread ? this.#unread(raw) : [raw]
    }
    const out: Uint8Array[] = []
    for (const e of events) {
      // Checked as it will be written: with the characters some clients split lines on escaped.
      const text = escapeLineSplits(e.data)
      const data = text === '' ? null : this.#messages(text)
      if (this.#cut) return []
      if (data === '') continue // nothing of it may be forwarded
      this.#fields ??= new SseFieldRewriter(this.#opts.rewriteText, this.#opts.shapedBy)
      out.push(encoder.encode(formatSseEvent({ ...this.#fields.toWrite(e), data: data ?? text })))
    }
    if (events.length === 0 && raw !== null && raw.length > 0 && this.#sse?.atBoundary) {
      out.push(KEEP_ALIVE)
    }
    return out
  }

  /**
   * Tap the messages of `text` (UTF-8 `bytes`, if held) and rewrite them: the new text (naming no
   * member twice: as parsed), or null when nothing changed. Not JSON-RPC: to `rewriteText`.
   */
  #messages(text: string, bytes?: Uint8Array): string | null {
    const body = parseJsonRpcText(text, { checkFirst: this.#metBroken })
    if (isBodyProblem(body)) {
      this.#metBroken = true
      // What the edge cannot parse a lenient agent may still read: a message to cut is cut.
      if (this.#opts.cutsOn && this.#cutsLenient(text)) {
        this.#cut = true
        return null
      }
      if (this.#opts.kind === 'json') this.#unparsed = true
      return this.#opts.rewrite ? (this.#opts.rewriteText?.(text) ?? null) : null
    }
    let changed = this.#opts.rewrite != null && namesMemberTwice(text, bytes)
    const out = body.messages.map((m) => {
      this.#opts.onMessage?.(m)
      if (this.#opts.cutsOn?.(m)) {
        this.#cut = true
        return m.value
      }
      const replaced = this.#opts.rewrite?.(m) ?? null
      if (replaced !== null) changed = true
      return replaced ?? m.value
    })
    if (!changed || this.#cut) return null
    try {
      return JSON.stringify(body.batch ? out : out[0])
    } catch {
      // Too deep to write back (V8's JSON.stringify recurses): what the rewrite had to change
      // never reaches the agent as it came. Answers become errors; other messages are dropped.
      for (const m of body.messages) if (m.kind === 'response') this.#opts.onWithheld?.(m)
      return unwritable(body.messages, body.batch)
    }
  }
}
