"""Code review (docs/review.md): the change from git, reviewers run as subagents, their
findings kept when they lie on the change, merged, and written as text, JSON or SARIF."""
