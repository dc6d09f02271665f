/**
 * A lookup keyed by what a stranger sent (a JSON-RPC method, a query value) in a table of our own:
 * only the table's own entries count, so `toString`, `constructor` or `__proto__` find nothing
 * instead of what every object inherits.
 */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined
}
