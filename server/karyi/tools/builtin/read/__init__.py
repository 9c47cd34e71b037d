"""Reading files: every profile's read tools over one way of reading a file.

`window` reads a file through the document store (recorded as read) and cuts the
line window a tool shows; `single` holds the one-file `read_file` tools, `batch` the
`read` tool that reads, lists and searches in one call, `many` `read_many_files`.
"""
