// A real SMTP server on loopback for tests (the `smtp-server` package): it accepts every message
// and keeps it, decoded enough to read links (quoted-printable bodies, as nodemailer writes long
// lines). No TLS and no AUTH are offered, so clients send in plain text on 127.0.0.1.
import { SMTPServer } from 'smtp-server'

/** A received message. */
export interface ReceivedMail {
  readonly to: readonly string[]
  readonly subject: string
  /** The text body, decoded. */
  readonly text: string
}

/** The running server and what it received. */
export interface SmtpInbox {
  readonly url: string
  readonly mails: ReceivedMail[]
  /** Wait until a mail to `to` whose subject matches arrives (the newest such); rejects after `ms`. */
  waitFor(to: string, subject: RegExp, ms?: number): Promise<ReceivedMail>
  /** Wait for a mail like `waitFor`'s that is not `seen` (a later one). */
  waitForAnother(
    to: string,
    subject: RegExp,
    seen: ReceivedMail,
    ms?: number,
  ): Promise<ReceivedMail>
  /** The first http(s) link in `mail`'s text. */
  link(mail: ReceivedMail): string
  close(): Promise<void>
}

/** Start the server on 127.0.0.1 at a free port. */
export async function startSmtpInbox(): Promise<SmtpInbox> {
  const mails: ReceivedMail[] = []
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        mails.push(parse(Buffer.concat(chunks).toString('utf8'), session.envelope.rcptTo))
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  /** The latest mail to `to` whose subject matches, other than `seen`, once there is one. */
  const latest = async (
    to: string,
    subject: RegExp,
    seen: ReceivedMail | null,
    ms: number,
  ): Promise<ReceivedMail> => {
    const deadline = Date.now() + ms
    for (;;) {
      const found = mails
        .filter((m) => m !== seen && m.to.includes(to) && subject.test(m.subject))
        .at(-1)
      if (found) return found
      if (Date.now() > deadline) {
        throw new Error(`no mail to ${to} matching ${subject}; got ${JSON.stringify(mails)}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitFor(to, subject, ms = 15_000) {
      return latest(to, subject, null, ms)
    },
    waitForAnother(to, subject, seen, ms = 15_000) {
      return latest(to, subject, seen, ms)
    },
    link(mail) {
      const m = /https?:\/\/\S+/.exec(mail.text)
      if (!m) throw new Error(`no link in ${mail.text}`)
      return m[0]
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

function parse(raw: string, rcptTo: readonly { address: string }[]): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n')
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ')
  const body = raw.slice(split + 4)
  const header = (name: string) =>
    new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? ''
  const qp = /quoted-printable/i.test(header('Content-Transfer-Encoding'))
  const text = qp
    ? body
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    : body
  return { to: rcptTo.map((r) => r.address), subject: header('Subject'), text }
}
