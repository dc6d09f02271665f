/**
 * Keeps V8's young generation at its initial size (two 1 MiB semi-spaces) in `burrow`. Every
 * socket read allocates its buffer outside the JS heap; while a large body streams through, V8
 * counts those buffers as external memory, and it frees young ones only when it scavenges. With
 * a young generation grown to its 32 MiB default, scavenges came too rarely and the external
 * memory set off full mark-compact collections instead, dozens a second (a quarter of the
 * client's CPU in a 10 MiB transfer). A small young generation is scavenged often and cheaply:
 * measured −20 to −30 % CPU per MB in bulk transfers, no change per small call, and a smaller
 * process. V8 reads the growth factor each time it would grow the space, so the executable sets
 * it first thing, before its modules load (they would grow it); a user who sizes the young
 * generation themselves keeps their own setting. burrowd does not do this: its bulk path got
 * slower with it (it reads the tunnel in frames that span socket reads).
 */
import { setFlagsFromString } from 'node:v8'

/** V8 flags that size the young generation: when the user passes one, theirs wins. */
const SIZING_FLAGS = /--(max|min)[-_]semi[-_]space[-_]size|--semi[-_]space[-_]growth[-_]factor/

/**
 * Whether `burrow up` should keep the young generation small: not when Node was started with a
 * flag that sizes it (on its command line or in NODE_OPTIONS).
 */
export function wantsSmallYoungGeneration(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): boolean {
  return !execArgv.some((arg) => SIZING_FLAGS.test(arg)) && !SIZING_FLAGS.test(nodeOptions ?? '')
}

/** Stop the young generation from growing any further. */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1')
}
