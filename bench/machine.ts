// What the numbers were measured on: they mean little without the core count and Node version.
import { cpus, platform, release, totalmem } from 'node:os'

/** A one-line description of this machine and runtime. */
export function describeMachine(): string {
  const list = cpus()
  const model = list[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU'
  const mem = (totalmem() / 1024 ** 3).toFixed(1)
  return `${list.length} CPUs (${model}), ${mem} GiB RAM, ${platform()} ${release()}, Node ${process.version}`
}
