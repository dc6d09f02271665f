/**
 * The Node.js flags `burrowd serve` runs with, wherever it is started: the Dockerfile, the systemd
 * unit, `npm start`, docs/operations.md and the benchmark all give these (a test keeps the
 * deployment files in step). They cannot be set from inside the process: V8 reads them when it
 * sets up the heap.
 *
 * `--no-memory-reducer`: V8's memory reducer runs memory-saving collections once a process has
 * been quiet for a few seconds, and then lets the heap grow only slowly. A broker is quiet between
 * bursts; the next large answer relayed after a pause then set off a mark-compact every few
 * megabytes (84 in one 5 s transfer, against 2 without the pause), and burrowd spent 3.6–4.3 ms
 * of CPU per MB instead of 1.1–1.5 (docs/benchmarks.md, "A pause before a transfer"). What the
 * reducer would give back is given back after a minute of quiet instead
 * (runtime/quiet-memory-release.ts).
 *
 * `--initial-old-space-size=64`: the old generation's limit never starts, nor falls back after a
 * memory-reducing collection, below 64 MB. It only allows the heap to grow that far before the
 * first mark-compact; memory is committed as it is used. Without it the first large transfer
 * after burrowd gave memory back ran 24–38 mark-compacts and cost 3.3–5.0 ms of CPU per MB;
 * with it, none, at 1.6–1.8 (docs/benchmarks.md, "Memory given back after a quiet minute").
 *
 * `--no-allocation-site-pretenuring`: V8 watches which object literals survive young collections
 * and, past a threshold, allocates the later ones straight in the old generation. A request's
 * objects all survive while it is in flight, so under load V8 pretenured some of them; once the
 * request was answered those old objects were dead but still pointed at the rest of it (headers,
 * response, closures), and every scavenge kept that young rest alive and then promoted it: 2.2–2.8
 * MB per scavenge at c=50, whole requests, until the next mark-compact. burrowd's objects are
 * either a request's (short) or a tunnel's and a cache's (few): nothing gains from pretenuring.
 * With it off, and the mux's streams in slots that are emptied before they are let go (protocol's
 * stream-table.ts), about 0.1 MB is promoted per scavenge and a scavenge takes a third of the
 * time (docs/benchmarks.md, "What burrowd's scavenges keep").
 *
 * `--heap-growing-percent=200`: after each mark-compact V8 sizes the heap's next limits from
 * what survived times a factor it picks from how fast it collected against how fast the process
 * allocated, between 1.1 and 4. Small calls allocate slowly against what a 30 MB heap takes to
 * mark, so after a spell of them V8 picked 1.1 (`--trace-gc-verbose`), and a large answer relayed
 * next ran a mark-compact every couple of hundred milliseconds (22 in 5 s), each begun as the
 * answer's buffers pressed V8 to collect ("external memory pressure"): burrowd spent 1.4–1.7 ms
 * of CPU per MB instead of the 1.1 of a fresh process. With a fixed factor of 3 the same
 * transfers ran none, at 1.0–1.2 ms/MB; small calls and the idle rows measured the same
 * (docs/benchmarks.md, "A fixed heap growing factor").
 */
export const BURROWD_NODE_FLAGS: readonly string[] = [
  '--no-memory-reducer',
  '--initial-old-space-size=64',
  '--no-allocation-site-pretenuring',
  '--heap-growing-percent=200',
]
