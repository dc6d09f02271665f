/** Why `StdioSupervisor.send()` refused a message. */

/** `send()` was called while no child is running. */
export class StdioUnavailableError extends Error {
  readonly code = 'stdio_unavailable'
}

/** `send()` was called while more than the bound waits for a child that does not read. */
export class StdioBackloggedError extends Error {
  readonly code = 'stdio_backlogged'
}
