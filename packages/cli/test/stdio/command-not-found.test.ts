// Which program a shell or env said it could not find, from the stderr line it wrote.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { programNotFoundIn } from '../../src/stdio/command-not-found.js'

describe('programNotFoundIn', () => {
  it('reads the program from dash, bash, zsh and env', () => {
    assert.equal(programNotFoundIn('sh: 1: my-server: not found'), 'my-server')
    assert.equal(programNotFoundIn('bash: my-server: command not found'), 'my-server')
    assert.equal(programNotFoundIn('bash: line 1: my-server: command not found'), 'my-server')
    assert.equal(programNotFoundIn('zsh:1: command not found: my-server'), 'my-server')
    assert.equal(programNotFoundIn("/usr/bin/env: 'python9': No such file or directory"), 'python9')
  })

  it('finds nothing in other lines', () => {
    assert.equal(programNotFoundIn('Error: Cannot find module ./x.js'), null)
    assert.equal(programNotFoundIn(''), null)
  })
})
