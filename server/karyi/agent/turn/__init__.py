"""The turn: model call → parse as it streams → run the calls → results → again.

`loop` holds the `Agent` and its step loop; `executor` runs one reply's calls (check,
ask, execute side by side, report in order) with `call_order`, `secure_values`
(`$KARYI{}` in, secrets never out) and the user's `hooks`.
Every step of a turn leaves as an event (`karyi.agent.events`).
"""
