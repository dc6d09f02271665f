// Resident memory of another process, read from /proc (Linux), in bytes.
import { readFileSync } from 'node:fs'

/** RSS of `pid` in bytes, or null where /proc is not available. */
export function rssOf(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(status)
    return m ? Number(m[1]) * 1024 : null
  } catch {
    return null
  }
}
