/**
 * The Traffic tab's live tail lasts only as long as the page may see it, through a real burrowd
 * and `burrow up`: a sign-out ends that session's tails at once and frees their places, while
 * the account's other sessions keep theirs; a deleted tunnel ends its tails; a tunnel's places
 * all taken are refused with the dashboard's error.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Child } from '../helpers/child.js'
import {
  openSession,
  postMcp,
  startCountingServer,
  toolCall,
  type CountingServer,
} from '../helpers/quota-stack.js'
import { startClient, startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

/** Another browser session of `user`'s account, signed in through the form: its cookie. */
async function signIn(user: WebUser): Promise<string> {
  const page = await fetch(`${user.base}/signin`)
  const form = (page.headers.getSetCookie()[0] ?? '').split(';', 1)[0] ?? ''
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? ''
  const res = await fetch(`${user.base}/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form },
    body: new URLSearchParams({
      _csrf: csrf,
      email: `${user.slug}@example.com`,
      password: 'correct horse battery',
    }),
  })
  assert.equal(res.status, 303, await res.text())
  const session = res.headers.getSetCookie().find((c) => c.startsWith('burrow_session='))
  return session?.split(';', 1)[0] ?? ''
}

/** An open live tail: the text it received, and whether the server ended it. */
interface Tail {
  readonly status: number
  text: string
  ended: Promise<void>
  close(): void
}

async function openTail(user: WebUser, tunnelId: string, cookie: string): Promise<Tail> {
  const abort = new AbortController()
  const res = await fetch(`${user.base}/dashboard/tunnels/${tunnelId}/traffic/stream`, {
    headers: { cookie },
    signal: abort.signal,
    redirect: 'manual',
  })
  const tail: Tail = {
    status: res.status,
    text: '',
    ended: Promise.resolve(),
    close: () => abort.abort(),
  }
  tail.ended = (async () => {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of res.body ?? []) tail.text += decoder.decode(chunk as Uint8Array)
    } catch {
      // closed by the test
    }
  })()
  return tail
}

describe('live tails and the sessions that opened them', { timeout: 120_000 }, () => {
  let service: Service
  let counting: CountingServer
  let user: WebUser
  let client: Child
  let tunnel: { id: string; url: string }

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    counting = await startCountingServer()
    user = await signUp(`http://127.0.0.1:${service.port}`, 'watcher')
    const made = await user.api<{ tunnel: { id: string; mcp_url: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name: 'watched', access: 'public' },
    )
    tunnel = { id: made.json.tunnel.id, url: made.json.tunnel.mcp_url }
    client = await startClient(service, made.json.key, ['--upstream', counting.url])
  })

  after(async () => {
    await client?.stop()
    await counting?.child.stop()
    await service?.close()
  })

  it('ends a signed-out session’s tails at once and frees their places for the owner', async () => {
    const other = await signIn(user)
    // The signed-out session holds every place but one.
    const held: Tail[] = []
    for (let i = 0; i < 19; i++) held.push(await openTail(user, tunnel.id, user.cookie))
    assert.deepEqual(
      held.map((t) => t.status),
      Array<number>(19).fill(200),
    )
    const kept = await openTail(user, tunnel.id, other)
    assert.equal(kept.status, 200)
    const full = await fetch(`${user.base}/dashboard/tunnels/${tunnel.id}/traffic/stream`, {
      headers: { cookie: other },
    })
    assert.equal(full.status, 429)
    assert.equal(full.headers.get('retry-after'), '30')
    assert.match(await full.text(), /Too many pages are watching tunnel/)

    assert.equal((await user.form('/signout', {})).status, 303)
    await Promise.all(held.map((t) => t.ended))
    // The owner's other session keeps its tail, sees the next call, and has places again.
    const session = await openSession(tunnel.url)
    const note = 'after-sign-out'
    await postMcp(tunnel.url, toolCall(1, 'echo', { note }), session)
    for (let i = 0; i < 100 && !kept.text.includes(note); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.ok(kept.text.includes(note), 'the other session sees the call')
    for (const t of held) assert.ok(!t.text.includes(note), 'a signed-out tail saw a call')
    const again = await openTail(user, tunnel.id, other)
    assert.equal(again.status, 200)
    again.close()

    // Deleting the tunnel ends the tails still open on it.
    assert.equal((await user.api('DELETE', `/api/tunnels/${tunnel.id}`)).status, 204)
    await kept.ended
    kept.close()
  })
})
