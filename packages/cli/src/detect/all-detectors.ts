/**
 * The seven clients auto-detection scans (the vendors' own apps, the largest AI IDEs and Gemini
 * CLI; their files are listed in docs/detect.md), in the order `detect` lists them.
 */
import { CLIENT_LABELS } from './detected-server.js'
import type { Detector } from './detector.js'
import { claudeCodeDetector } from './detectors/claude-code.js'
import { claudeDesktopDetector } from './detectors/claude-desktop.js'
import { codexDetector } from './detectors/codex.js'
import { cursorDetector } from './detectors/cursor.js'
import { geminiCliDetector } from './detectors/gemini-cli.js'
import { vscodeDetector } from './detectors/vscode.js'
import { windsurfDetector } from './detectors/windsurf.js'

/** Every detector, in listing order. */
export const ALL_DETECTORS: readonly Detector[] = [
  claudeDesktopDetector,
  claudeCodeDetector,
  cursorDetector,
  vscodeDetector,
  windsurfDetector,
  geminiCliDetector,
  codexDetector,
]

/** "Claude Desktop, Claude Code, …, Gemini CLI or Codex", for messages. */
export function scannedClientsText(): string {
  const labels = ALL_DETECTORS.map((d) => CLIENT_LABELS[d.client])
  return `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}`
}
