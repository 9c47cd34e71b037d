/**
 * "Karyi: Show Tools and MCP Servers": what the agent can call, where each tool comes
 * from, each MCP server's state, the skills it may load and the installed plugins
 * (docs/extensions.md); picking a server starts it again, picking a skill opens its
 * SKILL.md, picking a plugin its folder's manifest.
 */
import * as vscode from 'vscode';
import { Methods, type McpServerStatus, type ToolsInfo } from '../protocol';
import type { KaryiServer } from '../server';

type Item = vscode.QuickPickItem & { server?: string; open?: string };

/** The quick pick's rows: servers first (a failing one says why), then every tool, the
 * skills and the plugins. */
export function toolItems(info: ToolsInfo): Item[] {
  const items: Item[] = [];
  if (info.servers.length) {
    items.push({ label: 'MCP servers (pick one to restart it)', kind: vscode.QuickPickItemKind.Separator });
    for (const s of info.servers) items.push(serverItem(s));
  }
  items.push({ label: `Tools (${info.tools.length})`, kind: vscode.QuickPickItemKind.Separator });
  for (const t of info.tools) items.push({ label: t.name, description: t.source, detail: t.description.split('\n')[0] });
  const skills = info.skills ?? [];
  if (skills.length) {
    items.push({ label: `Skills (${skills.length}, pick one to open it)`, kind: vscode.QuickPickItemKind.Separator });
    for (const k of skills) items.push({ label: `$(book) ${k.name}`, description: k.scope, detail: k.description, open: k.path });
  }
  const plugins = info.plugins ?? [];
  if (plugins.length) {
    items.push({ label: `Plugins (${plugins.length})`, kind: vscode.QuickPickItemKind.Separator });
    for (const p of plugins) {
      const state = `${p.scope} · ${p.enabled ? 'enabled' : 'disabled'}${p.version ? ` · ${p.version}` : ''}`;
      items.push({ label: `$(extensions) ${p.name}`, description: state, detail: p.description || p.source, open: `${p.path}/.claude-plugin/plugin.json` });
    }
  }
  return items;
}

function serverItem(s: McpServerStatus): Item {
  const ok = s.state === 'connected';
  return {
    label: `$(${ok ? 'pass' : 'error'}) ${s.name}`,
    description: `${s.state}${s.transport ? ` · ${s.transport}` : ''}${s.where ? ` · ${s.where}` : ''}`,
    detail: s.error || `${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}: ${s.tools.join(', ')}`,
    server: s.state === 'invalid' ? undefined : s.name, // fix its settings entry first
  };
}

export async function showTools(server: KaryiServer): Promise<void> {
  const info = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'Karyi: starting the MCP servers…' },
    () => server.request(Methods.tools, {}),
  );
  for (const warning of info.warnings) server.output.appendLine(`[tools] ${warning}`);
  const pick = await vscode.window.showQuickPick(toolItems(info), {
    title: 'Karyi: tools and MCP servers',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (pick?.open) {
    await vscode.window.showTextDocument(vscode.Uri.file(pick.open), { preview: true });
    return;
  }
  if (!pick?.server) return;
  const name = pick.server;
  const status = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Karyi: restarting MCP server ${name}…` },
    () => server.request(Methods.restartMcpServer, { name }),
  );
  if (status.state === 'connected') {
    void vscode.window.showInformationMessage(`Karyi: MCP server ${name} is connected (${status.tools.length} tools).`);
  } else {
    void vscode.window.showErrorMessage(`Karyi: MCP server ${name} is ${status.state}: ${status.error || 'see the server log'}`);
  }
}
