/**
 * Which requests a batch line too long to read answered: the ids of the batch's answers, read from
 * the line's bytes as they stream past, without holding the line. Without this, only the single
 * answer `cut-answer.ts` reads from a line's ends became an error, and the agents of a batch's
 * other answers waited for their own timeouts. The same scan reads the ids of the server's own
 * requests (a `method` and an id) of such a line, batch or single message, which `burrow up`
 * answers to the server with an error; without that the server waited for its own timeout.
 *
 * An answer is a member object of the batch with a `result` or `error` member and no `method`
 * (the server's own requests carry ids of its own, and an error for one would answer another
 * request); its id is the object's own `id` member, the last one when it repeats, as `JSON.parse`
 * keeps it; ids inside a result or an error are values, not ids, and are never taken. Ids are
 * read as the normal path reads them (escapes decoded; numbers as `JSON.parse` reads them, none
 * that it rounds).
 *
 * The scan checks what it reads: strings end, brackets balance (and match, down to the members'
 * values), member objects are names, colons and commas in order, and nothing follows the batch. A
 * line that fails is not JSON and, as a line under the bound that is not JSON, gives no answers.
 * What is kept is bounded: at most `MAX_CUT_BATCH_IDS` distinct ids, each of at most
 * `MAX_CUT_ID_BYTES` bytes as written; the answers past them are counted, not kept.
 */
import { isJsonRpcId, type JsonRpcId } from '@burrow/protocol'

/** Most ids of one line that get an error; as many calls as an aggregated upstream may hold. */
export const MAX_CUT_BATCH_IDS = 10_000

/** Longest id taken, in bytes as written (quotes and escapes included). */
export const MAX_CUT_ID_BYTES = 256

/** Longest member name read; longer ones are none of `id`, `method`, `result`, `error`. */
const MAX_NAME_BYTES = 64

/** What a line's scan found. */
export interface BatchAnswers {
  /** The distinct ids of its answers, at most `MAX_CUT_BATCH_IDS`, in the order written. */
  readonly ids: readonly JsonRpcId[]
  /** Answers whose ids were not kept: past the count, or too long. */
  readonly left: number
  /** The distinct ids of the server's own requests, at most `MAX_CUT_BATCH_IDS`, in order. */
  readonly requests: readonly JsonRpcId[]
  /** Requests whose ids were not kept: past the count, or too long. */
  readonly requestsLeft: number
  /** False when the line is not JSON (then there are no ids). */
  readonly json: boolean
  /** True for a batch, false for a single message object. */
  readonly batch: boolean
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN_OBJECT = 0x7b
const OPEN_ARRAY = 0x5b
const CLOSE_OBJECT = 0x7d
const CLOSE_ARRAY = 0x5d

const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/**
 * Where the scan is: before the line's `[` or `{`, inside the batch or the single message, after
 * its end, or given up.
 */
type Mode = 'start' | 'batch' | 'single' | 'after' | 'broken' | 'other'
/** What a member object at the batch's level expects next. */
type Expect = 'first' | 'name' | 'colon' | 'value' | 'token' | 'next'
/** What a member's name says of it. */
type Role = 'id' | 'method' | 'answer' | 'other'

/** Reads the answer ids of a line fed in parts; `finish()` when it has ended. */
export class BatchAnswerIds {
  #mode: Mode = 'start'
  /** Open brackets: 1 inside the batch, 2 inside one of its elements. */
  #depth = 0
  /** Whether the element open at depth 2 is an object, and the container open at depth 3. */
  #elementIsObject = false
  #valueIsObject = false
  #inString = false
  #escape = false
  // The member object being read.
  #expect: Expect = 'first'
  #role: Role = 'other'
  #id: JsonRpcId | undefined
  #method = false
  #answer = false
  // The bytes of the name, id string or id token being read (`#keeping` when they are kept).
  readonly #kept = Buffer.alloc(Math.max(MAX_CUT_ID_BYTES, MAX_NAME_BYTES))
  #keeping = false
  #keptLength = 0
  #keptLimit = 0
  #overlong = false
  #idOverlong = false
  readonly #ids = new Map<string, JsonRpcId>()
  #left = 0
  readonly #requests = new Map<string, JsonRpcId>()
  #requestsLeft = 0
  #batch = false

  /** The next bytes of the line. */
  push(part: Uint8Array): void {
    // Where the part's next backslash is, once looked for.
    let backslash = -1
    for (let i = 0; i < part.length; i++) {
      if (this.#mode === 'broken' || this.#mode === 'other') return
      if (this.#inString && !this.#keeping && !this.#escape) {
        // Most of a long line is strings no one keeps: skipped to their next quote or backslash.
        if (backslash < i) backslash = indexOrEnd(part, BACKSLASH, i)
        i = Math.min(indexOrEnd(part, QUOTE, i), backslash)
        if (i === part.length) return
      }
      const c = part[i]!
      if (this.#inString) {
        this.#stringByte(c)
        continue
      }
      if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) {
        if (this.#expect === 'token' && this.#depth === 2) this.#endToken()
        continue
      }
      if (this.#mode === 'start') this.#begin(c)
      else if (this.#mode === 'after') this.#mode = 'broken'
      else if (this.#depth === 1) this.#inBatch(c)
      else if (this.#depth === 2 && this.#elementIsObject) this.#inMessage(c)
      else this.#inValue(c)
    }
  }

  /** The line ended: its answers and requests, none when it is not JSON, null for no message. */
  finish(): BatchAnswers | null {
    if (this.#mode === 'other' || this.#mode === 'start') return null
    const batch = this.#batch
    if (this.#mode !== 'after') {
      return { ids: [], left: 0, requests: [], requestsLeft: 0, json: false, batch }
    }
    const ids = [...this.#ids.values()]
    const requests = [...this.#requests.values()]
    return { ids, left: this.#left, requests, requestsLeft: this.#requestsLeft, json: true, batch }
  }

  /** The line's first byte that is not white space: a batch, a single message, or neither. */
  #begin(c: number): void {
    if (c === OPEN_ARRAY) {
      this.#mode = 'batch'
      this.#batch = true
      this.#depth = 1
    } else if (c === OPEN_OBJECT) {
      // A single message is read as the one member of a batch that ends with it.
      this.#mode = 'single'
      this.#startMessage()
    } else this.#mode = 'other'
  }

  /** A message object opens, at depth 2. */
  #startMessage(): void {
    this.#depth = 2
    this.#elementIsObject = true
    this.#expect = 'first'
    this.#role = 'other'
    this.#id = undefined
    this.#method = this.#answer = this.#idOverlong = false
  }

  #stringByte(c: number): void {
    if (this.#escape) this.#escape = false
    else if (c === BACKSLASH) this.#escape = true
    else if (c === QUOTE) {
      this.#inString = false
      if (this.#keeping) this.#endString()
      return
    }
    this.#keep(c)
  }

  #keep(c: number): void {
    if (!this.#keeping) return
    if (this.#keptLength < this.#keptLimit) this.#kept[this.#keptLength++] = c
    else this.#overlong = true
  }

  /** Keep the bytes that follow `first`, to `limit` in all (a string's closing quote apart). */
  #startKeeping(limit: number, first: number): void {
    this.#keeping = true
    this.#kept[0] = first
    this.#keptLength = 1
    this.#keptLimit = limit
    this.#overlong = false
  }

  /** In the batch, between its elements. */
  #inBatch(c: number): void {
    if (c === CLOSE_ARRAY) {
      this.#depth = 0
      this.#mode = 'after'
    } else if (c === OPEN_OBJECT) this.#startMessage()
    else if (c === OPEN_ARRAY) {
      this.#depth = 2
      this.#elementIsObject = false
    } else if (c === QUOTE) this.#inString = true
    else if (c === CLOSE_OBJECT) this.#mode = 'broken'
    // Commas and the bytes of scalar elements (not messages) need no more.
  }

  /** In a member object of the batch, between its members' parts. */
  #inMessage(c: number): void {
    const expect = this.#expect
    if (expect === 'token') {
      if (c !== COMMA && c !== CLOSE_OBJECT) return this.#keep(c)
      this.#endToken()
    }
    if (this.#expect === 'first' || this.#expect === 'name') {
      if (c === QUOTE) {
        this.#inString = true
        this.#startKeeping(MAX_NAME_BYTES - 1, QUOTE)
        this.#expect = 'colon'
      } else if (c === CLOSE_OBJECT && this.#expect === 'first') this.#endMessage()
      else this.#mode = 'broken'
    } else if (this.#expect === 'colon') {
      this.#expect = 'value'
      if (c !== COLON) this.#mode = 'broken'
    } else if (this.#expect === 'value') {
      if (this.#role === 'method') this.#method = true
      else if (this.#role === 'answer') this.#answer = true
      else if (this.#role === 'id') this.#takeId(undefined, false)
      this.#expect = 'next'
      if (c === QUOTE) {
        this.#inString = true
        if (this.#role === 'id') this.#startKeeping(MAX_CUT_ID_BYTES - 1, QUOTE)
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        this.#depth = 3
        this.#valueIsObject = c === OPEN_OBJECT
      } else if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || c === COLON) {
        this.#mode = 'broken'
      } else {
        this.#expect = 'token'
        if (this.#role === 'id') this.#startKeeping(MAX_CUT_ID_BYTES, c)
      }
    } else if (c === COMMA) this.#expect = 'name'
    else if (c === CLOSE_OBJECT) this.#endMessage()
    else this.#mode = 'broken'
  }

  /** Inside a value nested in an element: only strings and brackets matter. */
  #inValue(c: number): void {
    if (c === QUOTE) this.#inString = true
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      // In an element that is not an object, what opens at depth 3 is noted here, to be matched.
      if (this.#depth === 2) this.#valueIsObject = c === OPEN_OBJECT
      this.#depth++
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      const closesObject = c === CLOSE_OBJECT
      if (this.#depth === 3 && closesObject !== this.#valueIsObject) this.#mode = 'broken'
      else if (this.#depth === 2 && closesObject !== this.#elementIsObject) this.#mode = 'broken'
      this.#depth--
    }
  }

  /** A string kept (a member name or an id) ended, its closing quote not yet kept. */
  #endString(): void {
    this.#keeping = false
    const overlong = this.#overlong
    const text = this.#keptText(QUOTE)
    if (this.#expect === 'colon') {
      this.#role = overlong ? 'other' : roleOf(text)
      return
    }
    this.#takeId(overlong ? undefined : parsed(text), overlong)
  }

  /** The bytes kept, and `last`, as text. */
  #keptText(last?: number): string {
    if (last !== undefined) this.#kept[this.#keptLength++] = last
    return this.#kept.toString('utf8', 0, this.#keptLength)
  }

  /** A scalar value at the message's level ended. */
  #endToken(): void {
    this.#expect = 'next'
    if (!this.#keeping) return
    this.#keeping = false
    const overlong = this.#overlong
    const text = this.#keptText()
    this.#takeId(!overlong && NUMBER_TEXT.test(text) ? Number(text) : undefined, overlong)
  }

  #takeId(value: unknown, overlong: boolean): void {
    this.#id = isJsonRpcId(value) ? value : undefined
    this.#idOverlong = overlong
  }

  /**
   * A member object of the batch (or the single message) closed: an answer, or a request of the
   * server's own (a `method` and an id), when it says so; a notification has no id.
   */
  #endMessage(): void {
    this.#depth = 1
    if (this.#mode === 'single') {
      this.#depth = 0
      this.#mode = 'after'
    }
    if (this.#answer && !this.#method) this.#left += this.#takeInto(this.#ids)
    else if (this.#method && !this.#answer) this.#requestsLeft += this.#takeInto(this.#requests)
  }

  /** Keep the message's id in `ids`; 1 when it is not kept (too long, or past the count). */
  #takeInto(ids: Map<string, JsonRpcId>): number {
    if (this.#idOverlong) return 1
    const id = this.#id
    if (id === undefined) return 0
    const key = `${typeof id}:${id}`
    if (ids.has(key)) return 0
    if (ids.size >= MAX_CUT_BATCH_IDS) return 1
    ids.set(key, id)
    return 0
  }
}

function indexOrEnd(part: Uint8Array, byte: number, from: number): number {
  const at = part.indexOf(byte, from)
  return at === -1 ? part.length : at
}

/** What the member whose name is written `text` (quotes included) is. */
function roleOf(text: string): Role {
  const name = text.includes('\\') ? parsed(text) : text.slice(1, -1)
  if (name === 'id' || name === 'method') return name
  return name === 'result' || name === 'error' ? 'answer' : 'other'
}

/** `text` read as JSON, or undefined when it is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
