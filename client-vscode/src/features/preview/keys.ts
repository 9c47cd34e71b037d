/** The keys of the preview commands as shown in lenses and the chat (package.json binds them). */
const mac = typeof process !== 'undefined' && process.platform === 'darwin';

export const KEYS = {
  acceptHunk: mac ? '⌥⌘Y' : 'Ctrl+Alt+Y',
  rejectHunk: mac ? '⌥⌘N' : 'Ctrl+Alt+N',
  nextHunk: mac ? '⌥F5' : 'Alt+F5',
  previousHunk: mac ? '⇧⌥F5' : 'Shift+Alt+F5',
  acceptAll: mac ? '⌥⌘⏎' : 'Ctrl+Alt+Enter',
  rejectAll: mac ? '⌥⌘⌫' : 'Ctrl+Alt+Backspace',
} as const;
