#!/usr/bin/env node
/**
 * The `burrow` executable. Before anything else is loaded it keeps V8's young generation small
 * (young-generation.ts; the modules loaded at start-up would already have grown it), unless
 * Node was told a size; then it runs the command line (run-cli.ts).
 */
import { keepYoungGenerationSmall, wantsSmallYoungGeneration } from '../young-generation.js'

if (wantsSmallYoungGeneration(process.execArgv, process.env.NODE_OPTIONS))
  keepYoungGenerationSmall()
const { runCli } = await import('../run-cli.js')
runCli()
