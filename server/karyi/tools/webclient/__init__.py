"""The web layer of the web tools: address policy, fetching, extraction, search backends."""
