/**
 * Set field `name` of a plain object built from what a stranger sent (HTTP header names) as an
 * own property whatever the name: `target[name] = value` with `__proto__` would set the object's
 * prototype instead, and drop the field. The object stays an ordinary one, quick to build and to
 * read on the per-call path, unlike one made by `Object.create(null)` (a dictionary to V8).
 * Reading such objects by a stranger's name goes through `ownEntry` or `Object.hasOwn`.
 */
export function setOwnField<T>(target: Record<string, T>, name: string, value: T): void {
  if (name === '__proto__') {
    Object.defineProperty(target, name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  } else {
    target[name] = value
  }
}
