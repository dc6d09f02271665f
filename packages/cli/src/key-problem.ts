/**
 * Why a value given as the tunnel key cannot be one, or null when it has the key's form. Burrow
 * has four kinds of secret, and a new user holding one of the others says which it is: an API
 * token (`btk_`, for the JSON API) or an agent token (`atk_`, which agents send to a tunnel).
 * Only the prefix is read; the broker checks the key itself.
 */
export function tunnelKeyProblem(key: string): string | null {
  if (key.startsWith('mtk_')) return null
  const where = 'check --api-key / BURROW_API_KEY'
  const own =
    'burrow up takes the tunnel key (mtk_…), shown once when the tunnel is created; "Rotate key" on the tunnel\'s page makes a new one'
  if (key.startsWith('btk_'))
    return `that is an API token (btk_…), for the JSON API; ${own} (${where})`
  if (key.startsWith('atk_'))
    return `that is an agent token (atk_…), which agents send to a tunnel; ${own} (${where})`
  if (/^["']mtk_/.test(key)) return `the tunnel key has quotes around it; remove them (${where})`
  return `the tunnel key must start with "mtk_"; ${where}`
}
