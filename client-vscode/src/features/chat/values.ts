/**
 * Secure values a tool asks for (`valueRequested`): asked in a password box, never shown
 * in the chat, sent with `karyi/provideValue` (docs/security.md).
 */
import * as vscode from 'vscode';
import { Methods, type ProvideValueParams } from '../../protocol';
import type { KaryiServer } from '../../server';
import type { Action, ChatState, ToolCard } from '../../shared/chat/state';

/** What asking for a value needs of the chat (the controller). */
export interface ValueChat {
  readonly state: ChatState;
  readonly server: KaryiServer;
  card(callId: string): ToolCard | undefined;
  dispatch(action: Action): void;
}

/** Ask for the value of call `callId` in a password box; `save` keeps it for next time. */
export async function askValue(chat: ValueChat, callId: string, save: boolean): Promise<void> {
  const v = chat.card(callId)?.value;
  if (!v || v.answered || !chat.state.sessionId) return;
  const value = await vscode.window.showInputBox({
    title: `Karyi needs ${v.key}`,
    prompt: [v.reason, v.note].filter(Boolean).join(' — ') || `A value for ${v.key}. It is passed to the tool and never shown to the model.`,
    password: true,
    ignoreFocusOut: true,
    placeHolder: v.exists ? 'Leave empty to use the saved value' : undefined,
  });
  if (value === undefined) return; // dismissed: the card keeps its buttons
  if (chat.card(callId)?.value?.answered) return;
  await provideValue(chat, callId, v.key, value || (v.exists ? undefined : ''), save);
}

async function provideValue(chat: ValueChat, callId: string, key: string, value: string | undefined, save: boolean): Promise<void> {
  const sessionId = chat.state.sessionId;
  if (!sessionId) return;
  const params: ProvideValueParams = { sessionId, key, save };
  if (value !== undefined) params.value = value;
  try {
    await chat.server.request(Methods.provideValue, params);
    chat.dispatch({ kind: 'valueAnswered', callId, answer: value === undefined ? 'refused' : 'given' });
  } catch (err) {
    void vscode.window.showErrorMessage(`Karyi: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Refuse the value call `callId` asks for (the card's Refuse button). */
export async function refuseValue(chat: ValueChat, callId: string): Promise<void> {
  const v = chat.card(callId)?.value;
  if (!v || !chat.state.sessionId) return;
  const params = { sessionId: chat.state.sessionId, key: v.key, value: null };
  try {
    await chat.server.request(Methods.provideValue, params);
    chat.dispatch({ kind: 'valueAnswered', callId, answer: 'refused' });
  } catch (err) {
    void vscode.window.showErrorMessage(`Karyi: ${err instanceof Error ? err.message : String(err)}`);
  }
}
