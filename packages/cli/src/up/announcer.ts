/**
 * What `up` prints as the broker tells it things: the announcement on a fresh session; on a
 * resumed one only a changed access (the owner changed it while the client was away); on a NOTICE,
 * a changed access while connected. The same mode again prints nothing.
 */
import type { AccessNote, Logger, Notice, Welcome } from '@burrow/protocol'
import { accessChange, accessLines } from './access-lines.js'
import { announcement } from './snippet.js'

/** The client's WELCOME and NOTICE handlers, printing through `out`. */
export function announcer(
  out: (text: string) => void,
  label: () => string,
  name: string | null,
  log: Pick<Logger, 'info'>,
): { onWelcome: (welcome: Welcome) => void; onNotice: (notice: Notice) => void } {
  let last: Welcome | null = null
  const told = (access: AccessNote | undefined) => {
    if (!last || !access || access.mode === last.access?.mode) return
    const known = last.access !== undefined
    last = { ...last, access }
    if (known) return out(accessChange(last))
    // A broker that said nothing before (it was upgraded meanwhile) changed nothing we know of:
    // its mode is said as on a fresh start, where a public tunnel gets no line (nor blank ones).
    const lines = accessLines(last)
    if (lines.length > 0) out(`\n${lines.join('\n')}\n`)
  }
  return {
    onWelcome: (welcome) => {
      if (last && welcome.resumed) {
        log.info('reconnected; the session continues')
        return told(welcome.access)
      }
      last = welcome
      out(announcement(welcome, label(), name))
    },
    onNotice: (notice) => told(notice.access),
  }
}
