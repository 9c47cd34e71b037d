/**
 * The calls whose edits the preview shows, by call id, and the questions the manager
 * asks of them: which pending files show a document, which calls an answer is for,
 * what a file's card says.
 */
import type * as vscode from 'vscode';
import type { FileState } from '../../shared/chat/state';
import type { CallView, FileView } from './model';

/** The previewed calls by id (a Map), with the lookups the manager needs. */
export class PendingCalls extends Map<string, CallView> {
  /** The files of calls not yet answered that show `uri` (and still exist). */
  filesOf(uri: vscode.Uri): [CallView, FileView][] {
    const key = uri.toString();
    const out: [CallView, FileView][] = [];
    for (const call of this.values()) {
      if (call.sent) continue;
      for (const f of call.files) if (f.key === key && !f.gone) out.push([call, f]);
    }
    return out;
  }

  /** The pending call `callId` and its file `key`. */
  find(callId: string, key?: string): [CallView, FileView | undefined] | undefined {
    const call = this.get(callId);
    if (!call || call.sent) return undefined;
    return [call, key ? call.files.find((f) => f.key === key) : undefined];
  }

  /** The call `callId` if it is still pending, or every pending call. */
  targets(callId?: string): CallView[] {
    if (callId) {
      const c = this.get(callId);
      return c && !c.sent ? [c] : [];
    }
    return this.pending();
  }

  /** Every call still waiting for the user. */
  pending(): CallView[] {
    return [...this.values()].filter((c) => !c.sent);
  }
}

/** What the chat's card says of file `f` from its hunks' decisions. */
export function fileState(f: FileView): FileState {
  if (f.gone) return 'gone';
  if (f.modified !== undefined) return 'edited';
  const states = new Set(f.hunks.map((h) => h.state));
  if (states.has('pending')) return f.closed ? 'closed' : 'pending';
  if (states.size === 1) return states.has('accepted') ? 'accepted' : 'rejected';
  return 'partial';
}
