/**
 * `--stdio "<CMD>"` parsing: shell-style quoting and $VAR expansion without a shell, and clear
 * refusals for what only a shell could do.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseCommand } from '../../src/stdio/parse-command.js'

const env = { HOME: '/home/ada', TOKEN: 's3cret' }

describe('parseCommand', () => {
  it('splits words and honours quotes', () => {
    assert.deepEqual(parseCommand(`node server.js --name "my server" 'two words'`, env), {
      command: 'node',
      args: ['server.js', '--name', 'my server', 'two words'],
    })
    assert.deepEqual(parseCommand('npx -y @modelcontextprotocol/server-everything', env), {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything'],
    })
  })

  it('expands variables from env, except inside single quotes', () => {
    const parsed = parseCommand(
      `srv --dir $HOME/data --token=\${TOKEN} --unset "$NOPE" '$HOME'`,
      env,
    )
    assert.deepEqual(parsed.args, [
      '--dir',
      '/home/ada/data',
      '--token=s3cret',
      '--unset',
      '',
      '$HOME',
    ])
  })

  it('keeps quoted wildcards and # as plain text', () => {
    assert.deepEqual(parseCommand(`grep '*.js' "a#b"`, env).args, ['*.js', 'a#b'])
  })

  it('refuses shell operators and says how to use a shell', () => {
    for (const cmd of ['a | b', 'a && b', 'a > out.txt', 'a; b', 'a < in', 'a &']) {
      assert.throws(
        () => parseCommand(cmd, env),
        (err: Error) =>
          err.message.startsWith(`--stdio "${cmd}": shell operators`) &&
          err.message.includes("sh -c '…'"),
        cmd,
      )
    }
  })

  it('refuses unquoted wildcards and comments', () => {
    assert.throws(() => parseCommand('node *.js', env), /wildcards such as \*\.js are not expanded/)
    assert.throws(() => parseCommand('node x.js # note', env), /unquoted # starts a shell comment/)
  })

  it('refuses empty commands', () => {
    for (const cmd of ['', '   ', '""', '$NOPE']) {
      assert.throws(() => parseCommand(cmd, env), /the command is empty/, JSON.stringify(cmd))
    }
  })

  it('refuses leading environment assignments', () => {
    assert.throws(
      () => parseCommand('TOKEN=1 node x.js', env),
      /environment assignments such as TOKEN=1 are not supported/,
    )
  })

  it('keeps Windows backslash paths on win32', () => {
    const parsed = parseCommand('C:\\tools\\server.exe --root C:\\data', env, { platform: 'win32' })
    assert.deepEqual(parsed, { command: 'C:\\tools\\server.exe', args: ['--root', 'C:\\data'] })
  })
})
