/**
 * The Agents view (docs/parallel.md, "In VS Code"): every background task of the
 * workspace's repository with its status, current step, elapsed time and cost, kept
 * current by `karyi/taskUpdate`; a notification when a task finishes or waits.
 */
import * as vscode from 'vscode';
import { Methods, type TaskRecord } from '../../protocol';
import type { KaryiServer } from '../../server';
import { ACTIVE, notice, REVIEWABLE, shownStatus, statusIcon, type TaskList, taskRow } from '../../features/agents/rows';

export const AGENTS_VIEW_ID = 'karyi.agents';

export class AgentsView implements vscode.TreeDataProvider<TaskRecord>, TaskList, vscode.Disposable {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly changed = new vscode.EventEmitter<TaskRecord | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly server: KaryiServer) {
    this.disposables.push(
      this.changed,
      vscode.window.registerTreeDataProvider(AGENTS_VIEW_ID, this),
      server.onTaskUpdate((t) => this.update(t)),
      server.onState(({ state }) => {
        if (state === 'running') void this.refresh();
      }),
    );
  }

  /** Every task known, oldest first. */
  all(): TaskRecord[] {
    return [...this.tasks.values()].sort((a, b) => a.created - b.created);
  }

  /** Read the whole list again from the server (quietly: no server, no tasks yet). */
  async refresh(): Promise<void> {
    try {
      const { tasks } = await this.server.request(Methods.tasks, {});
      this.tasks.clear();
      for (const t of tasks) this.tasks.set(t.id, t);
    } catch (err) {
      this.server.output.appendLine(`[agents] ${err instanceof Error ? err.message : String(err)}`);
    }
    this.changed.fire(undefined);
    this.tick();
  }

  /** One task's new record (from an update or an action's answer). */
  update(t: TaskRecord): void {
    const before = this.tasks.get(t.id);
    const message = notice(t, before && shownStatus(before));
    this.tasks.set(t.id, t);
    this.changed.fire(undefined);
    this.tick();
    if (message) void this.announce(t, message);
  }

  private async announce(t: TaskRecord, message: string): Promise<void> {
    if (t.status === 'waiting') {
      const choice = await vscode.window.showWarningMessage(message, 'Allow', 'Deny');
      if (choice) await vscode.commands.executeCommand('karyi.agents.answer', t, choice === 'Allow');
      return;
    }
    const choice = await vscode.window.showInformationMessage(message, 'Review', 'Apply');
    if (choice === 'Review') await vscode.commands.executeCommand('karyi.agents.review', t);
    if (choice === 'Apply') await vscode.commands.executeCommand('karyi.agents.apply', t);
  }

  /** While a task runs, the elapsed times move every second. */
  private tick(): void {
    const active = this.all().some((t) => ACTIVE.has(shownStatus(t)) && t.started !== null);
    if (active && !this.ticker) this.ticker = setInterval(() => this.changed.fire(undefined), 1000);
    if (!active && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  getTreeItem(t: TaskRecord): vscode.TreeItem {
    const row = taskRow(t, Date.now() / 1000);
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.id = t.id;
    item.description = row.description;
    item.contextValue = row.contextValue;
    item.iconPath = new vscode.ThemeIcon(statusIcon(shownStatus(t)));
    item.tooltip = new vscode.MarkdownString(
      `**${t.status}** · \`${t.branch}\`\n\n${t.task}${t.final_answer ? `\n\n---\n\n${t.final_answer}` : ''}`,
    );
    if (REVIEWABLE.has(shownStatus(t))) item.command = { command: 'karyi.agents.review', title: 'Review', arguments: [t] };
    return item;
  }

  getChildren(element?: TaskRecord): TaskRecord[] {
    return element ? [] : this.all();
  }

  dispose(): void {
    if (this.ticker) clearInterval(this.ticker);
    for (const d of this.disposables) d.dispose();
  }
}
