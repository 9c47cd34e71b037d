/**
 * The language server contract (docs/protocol.md, "The language server") as types.
 * Pure declarations: shared by the extension host, the webview and the tests. All of
 * them are generated from the server's types (`protocol.gen.ts`, `make protocol`):
 * the methods' parameters and names, the events of `karyi/turnUpdate` and the
 * results.
 */
export * from './protocol.gen';
