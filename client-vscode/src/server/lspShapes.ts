// VS Code's values in the LSP JSON shapes Karyi's server reads (ranges, diagnostics).
import * as vscode from 'vscode';

const SEVERITY: Record<number, number> = {
  [vscode.DiagnosticSeverity.Error]: 1,
  [vscode.DiagnosticSeverity.Warning]: 2,
  [vscode.DiagnosticSeverity.Information]: 3,
  [vscode.DiagnosticSeverity.Hint]: 4,
};

export function lspRange(r: vscode.Range) {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

/** A diagnostic as LSP JSON (what the server's context block reads). */
export function lspDiagnostic(d: vscode.Diagnostic) {
  const code = typeof d.code === 'object' ? d.code.value : d.code;
  return { range: lspRange(d.range), severity: SEVERITY[d.severity], message: d.message, source: d.source, code };
}
