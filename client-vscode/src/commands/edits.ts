/** The edit preview's commands: accept or reject all, a file, a hunk; move between hunks; drafts. */
import { discardDraft, editProposal, useDraft } from '../features/preview/drafts';
import type { Commands } from './parts';

export const EDIT_COMMANDS: Commands = {
  'karyi.acceptAll': (p, arg?: unknown) => p.previews.acceptAll(typeof arg === 'string' ? arg : undefined),
  'karyi.rejectAll': (p, arg?: unknown) => p.previews.rejectAll(typeof arg === 'string' ? arg : undefined),
  'karyi.acceptHunk': (p, callId?: string, key?: string, hunk?: string) =>
    callId && key && hunk ? p.previews.decideHunk(callId, key, hunk, 'accepted') : p.previews.decideAtCursor('accepted'),
  'karyi.rejectHunk': (p, callId?: string, key?: string, hunk?: string) =>
    callId && key && hunk ? p.previews.decideHunk(callId, key, hunk, 'rejected') : p.previews.decideAtCursor('rejected'),
  'karyi.nextHunk': (p) => p.previews.goToHunk(1),
  'karyi.previousHunk': (p) => p.previews.goToHunk(-1),
  'karyi.acceptFile': (p, callId: string, key: string) => p.previews.decideFile(callId, key, 'accepted'),
  'karyi.rejectFile': (p, callId: string, key: string) => p.previews.decideFile(callId, key, 'rejected'),
  'karyi.editProposal': (p, callId: string, key: string) => editProposal(p.previews, callId, key),
  'karyi.useDraft': (p, callId: string, key: string) => useDraft(p.previews, callId, key),
  'karyi.discardDraft': (p, callId: string, key: string) => discardDraft(p.previews, callId, key),
  'karyi.showProposalDiff': (p, callId: string, key: string) => p.previews.showDiff(callId, key),
};
