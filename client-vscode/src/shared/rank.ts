/** Ordering workspace paths for @file completion (pure). */

/** Rank `paths` for `query`: substring of the name first, then of the path, then subsequence. */
export function rankPaths(paths: readonly string[], query: string, limit = 20): string[] {
  const q = query.toLowerCase();
  if (!q) return [...paths].sort((a, b) => a.length - b.length || a.localeCompare(b)).slice(0, limit);
  const scored: [number, string][] = [];
  for (const p of paths) {
    const lower = p.toLowerCase();
    const name = lower.slice(lower.lastIndexOf('/') + 1);
    let score: number;
    if (name.startsWith(q)) score = 0;
    else if (name.includes(q)) score = 1;
    else if (lower.includes(q)) score = 2;
    else {
      let i = 0;
      for (const ch of lower) if (ch === q[i]) i++;
      if (i < q.length) continue;
      score = 3;
    }
    scored.push([score * 10_000 + p.length, p]);
  }
  scored.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
  return scored.slice(0, limit).map(([, p]) => p);
}
