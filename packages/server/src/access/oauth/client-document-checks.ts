/**
 * What a Client ID Metadata Document's URL and answer must look like beyond being JSON
 * (client-registry.ts): no dot segments in the URL's path, and a JSON media type, sent once.
 */

/**
 * Whether the path of `clientId` (as written, before the URL parser resolves it) has a `.` or
 * `..` segment, percent-encoded or not: the draft forbids them in a client_id URL.
 */
export function hasDotSegment(clientId: string): boolean {
  // The parser reads a backslash as a slash in an https URL, in the host part too (found by a
  // review: `https://host\\org\\..\\x` was read as the host part whole, and fetched as /x).
  const path = clientId.replace(/^[a-z][a-z0-9+.-]*:[/\\]{2}[^/\\?#]*/i, '').split(/[?#]/)[0] ?? ''
  return path.split(/[/\\]/).some((segment) => /^(\.|%2e){1,2}$/i.test(segment))
}

/**
 * The media type of a `content-type` header, lower case, without parameters; '' for none, and
 * `several types` when it was sent more than once with different types (only the first was
 * read, found by a review).
 */
export function mediaTypeOf(header: string | string[] | undefined): string {
  const values = (Array.isArray(header) ? header : [header ?? '']).map((value) =>
    (value.split(';')[0] ?? '').trim().toLowerCase(),
  )
  return new Set(values).size > 1 ? 'several types' : (values[0] ?? '')
}

/**
 * Whether a document of `type` is JSON as served on purpose: `application/json` or a
 * `+json` type. A site that serves its users' files as text (a paste, a raw file view) does not
 * make them client documents under its name.
 */
export function isJsonType(type: string): boolean {
  return type === 'application/json' || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(type)
}
