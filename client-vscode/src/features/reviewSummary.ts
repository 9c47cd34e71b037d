/** What `karyi.review` answers and its one-line summary: pure, so unit tests run it without VS Code. */
/** What `karyi.review` answers (the JSON of `karyi review --format json`). */
export interface ReviewAnswer {
  change: string;
  findings: { severity: string }[];
  dropped: number;
  merged: number;
  tokens?: number;
  cost?: number | null;
  overBudget?: boolean;
}

/** One line: the findings by severity, what was dropped and merged, tokens and cost. */
export function reviewSummary(a: ReviewAnswer): string {
  const count = (s: string) => a.findings.filter((f) => f.severity === s).length;
  const bySeverity = ['error', 'warning', 'info'].map((s) => `${count(s)} ${s}`).join(', ');
  const parts = [`${a.findings.length} finding${a.findings.length === 1 ? '' : 's'} (${bySeverity}) in the ${a.change}`];
  if (a.dropped) parts.push(`${a.dropped} off the change dropped`);
  if (a.merged) parts.push(`${a.merged} merged`);
  if (a.tokens !== undefined) parts.push(`${a.tokens.toLocaleString('en-US')} tokens`);
  if (a.cost !== undefined && a.cost !== null) parts.push(`$${a.cost.toFixed(4)}`);
  if (a.overBudget) parts.push('budget reached');
  return parts.join(' · ');
}
