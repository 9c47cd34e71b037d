"""Review: whether a call may run and what the user made of its edit.

`approval` decides once per call (ask, allow, refuse) with the remembered answers of
`permissions`; `write_journal` records the files a call changed and hands them to the
editor; `edit_answer` reads the user's per-hunk answer to a preview and `edit_truth`
tells the model what the file now holds.
"""
