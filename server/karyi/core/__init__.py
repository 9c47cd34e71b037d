"""The vocabulary every layer of Karyi shares: error codes, parameter validation, result
and permission types, atomic file writes. It imports nothing else of `karyi`."""
