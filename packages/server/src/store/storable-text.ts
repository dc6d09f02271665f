/**
 * Text from outside (an agent's method or tool name, a session id) as both databases store it:
 * PostgreSQL's text columns cannot hold U+0000, and a row holding one fails its whole INSERT,
 * and with it every other row of the batch. Each NUL becomes U+FFFD; the text is cut at `max`
 * characters, never inside a surrogate pair.
 */
export function storableText(text: string, max = Infinity): string {
  let out = text.length > max ? text.slice(0, max) : text
  if (out.length > 0 && out.length < text.length) {
    const last = out.charCodeAt(out.length - 1)
    if (last >= 0xd800 && last <= 0xdbff) out = out.slice(0, -1)
  }
  return out.includes('\u0000') ? out.replaceAll('\u0000', '\uFFFD') : out
}
