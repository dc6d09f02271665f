// CPU time of the processes in a cell, from /proc/<pid>/stat (Linux), so each row can show who
// used the two cores: the load generator, burrowd, burrow, the bridge and the MCP server.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** One labelled set of processes whose CPU time is summed. */
export interface CpuSubject {
  readonly label: string
  /** Process ids, resolved when measuring starts (a bridge may spawn its server late). */
  readonly pids: () => readonly number[]
}

const TICKS_PER_SECOND = clockTicks()

function clockTicks(): number {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim())
    return n > 0 ? n : 100
  } catch {
    return 100
  }
}

/** utime + stime of `pid` in seconds, or null when it is gone or /proc is unavailable. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
  } catch {
    return null
  }
}

/** Every descendant of `pid` (children, grandchildren …), found through /proc. */
export function descendantsOf(pid: number): number[] {
  const parentOf = new Map<number, number>()
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      parentOf.set(Number(name), ppid)
    } catch {
      // The process ended while we looked.
    }
  }
  const out: number[] = []
  const frontier = [pid]
  while (frontier.length > 0) {
    const parent = frontier.pop()!
    for (const [child, ppid] of parentOf) {
      if (ppid === parent) {
        out.push(child)
        frontier.push(child)
      }
    }
  }
  return out
}

/** Busy CPU seconds of the whole machine (all cores), from /proc/stat; null where unavailable. */
function machineBusySeconds(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!
    const [user, nice, system, , , irq, softirq, steal] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number)
    return (
      ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) /
      TICKS_PER_SECOND
    )
  } catch {
    return null
  }
}

/**
 * Measures the CPU share of each subject between `start` and `stop`, plus "other": what the rest
 * of the machine used meanwhile (other programs, the kernel's share not charged to our processes).
 */
export class CpuMeter {
  readonly #subjects: readonly CpuSubject[]
  #startedAt = 0
  #selfStart: NodeJS.CpuUsage | null = null
  #before = new Map<string, { pids: readonly number[]; seconds: number }>()
  #result: string | null = null
  #other: number | null = null
  #machineStart: number | null = null
  #seconds: { label: string; seconds: number }[] = []
  #wall = 0

  constructor(subjects: readonly CpuSubject[]) {
    this.#subjects = subjects
  }

  start(): void {
    this.#startedAt = performance.now()
    this.#selfStart = process.cpuUsage()
    this.#machineStart = machineBusySeconds()
    for (const s of this.#subjects) {
      const pids = s.pids()
      this.#before.set(s.label, { pids, seconds: sum(pids) })
    }
  }

  stop(): void {
    const wall = (performance.now() - this.#startedAt) / 1000
    if (wall <= 0 || this.#selfStart === null) return
    const self = process.cpuUsage(this.#selfStart)
    let ours = (self.user + self.system) / 1e6
    const parts = [`gen ${pct(ours, wall)}`]
    this.#wall = wall
    this.#seconds = [{ label: 'gen', seconds: ours }]
    for (const s of this.#subjects) {
      const before = this.#before.get(s.label)
      if (!before) continue
      const used = sum(before.pids) - before.seconds
      ours += used
      parts.push(`${s.label} ${pct(used, wall)}`)
      this.#seconds.push({ label: s.label, seconds: used })
    }
    const machine = machineBusySeconds()
    if (machine !== null && this.#machineStart !== null) {
      const other = Math.max(0, machine - this.#machineStart - ours)
      this.#other = (other / wall) * 100
      parts.push(`other ${pct(other, wall)}`)
    }
    this.#result = parts.join(' · ')
  }

  /** "gen 97 · burrowd 70 · …" in percent of one core, or '' when nothing was measured. */
  get summary(): string {
    return this.#result ?? ''
  }

  /** CPU seconds each process used in the window (`gen` first), and the window in seconds. */
  get used(): { readonly perProcess: readonly { label: string; seconds: number }[]; wall: number } {
    return { perProcess: this.#seconds, wall: this.#wall }
  }

  /** CPU used by everything else on the machine, in percent of one core; null if unknown. */
  get otherPercent(): number | null {
    return this.#other
  }
}

function sum(pids: readonly number[]): number {
  let total = 0
  for (const pid of pids) total += cpuSeconds(pid) ?? 0
  return total
}

function pct(seconds: number, wall: number): string {
  return String(Math.round((seconds / wall) * 100))
}
