"""The HTTP gateway (docs/gateway.md): `POST /agent/process` for programs that are not
editors. `biz_params.tool` runs one tool of the `gateway` profile; without it the
request runs an agent turn. A thin front end over the same core as the CLI and the LSP
server: `app.create_app` builds the ASGI app, `server.serve` runs it with uvicorn.
"""
