/** When the editor's diagnostics count as settled after an edit (see diagnostics.ts). */

export const QUIET_MS = 300;
export const IDLE_MS = 1500;

/** When to answer: the settle rule above as a pure function of what has happened so far. */
export function settled(elapsedMs: number, sinceChangeMs: number | undefined, waitMs: number): boolean {
  if (elapsedMs >= waitMs) return true;
  if (sinceChangeMs === undefined) return elapsedMs >= IDLE_MS;
  return sinceChangeMs >= QUIET_MS;
}

