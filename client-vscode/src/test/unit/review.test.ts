import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reviewSummary } from '../../features/reviewSummary';

describe('the review summary', () => {
  it('counts the findings by severity and gives the figures', () => {
    const line = reviewSummary({
      change: 'uncommitted changes',
      findings: [{ severity: 'error' }, { severity: 'info' }, { severity: 'error' }],
      dropped: 1,
      merged: 2,
      tokens: 48210,
      cost: 0.031,
      overBudget: false,
    });
    assert.equal(line, '3 findings (2 error, 0 warning, 1 info) in the uncommitted changes · 1 off the change dropped · 2 merged · 48,210 tokens · $0.0310');
  });

  it('says when the budget stopped the reviewers', () => {
    const line = reviewSummary({ change: 'commit abc', findings: [{ severity: 'warning' }], dropped: 0, merged: 0, tokens: 10, cost: null, overBudget: true });
    assert.equal(line, '1 finding (0 error, 1 warning, 0 info) in the commit abc · 10 tokens · budget reached');
  });
});
