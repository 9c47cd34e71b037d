/**
 * How a background task reads in the Agents view and its notifications (docs/parallel.md,
 * "In VS Code"): pure functions of the task's record, so they are unit-tested without
 * VS Code.
 */
import type { TaskRecord } from '../../protocol';

/** Still going: it can be stopped, not yet reviewed. */
export const ACTIVE = new Set<TaskRecord['status']>(['queued', 'running', 'waiting']);
/** Finished with work to review, apply, keep or discard (`interrupted`: the server that ran
 * it ended first; the server's next start marks it and keeps its work). */
export const REVIEWABLE = new Set<TaskRecord['status']>(['done', 'failed', 'stopped', 'interrupted']);

/** The status to show: the server marks a task `done` (or `failed`) when its turn ends,
 * before its check command has run; until it has finished it is still running. */
export function shownStatus(t: TaskRecord): TaskRecord['status'] {
  if ((t.status === 'done' || t.status === 'failed') && t.started !== null && t.finished === null) return 'running';
  return t.status;
}

/** Elapsed seconds as `7s`, `2m 05s`, `1h 02m`. */
export function formatElapsed(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** The cost as `$0.0123` (small amounts keep four decimals), or `` when unknown. */
export function formatCost(cost: number | null): string {
  if (cost === null || cost === undefined) return '';
  return cost < 1 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

/** The codicon of a status. */
export function statusIcon(status: TaskRecord['status']): string {
  const icons: Record<TaskRecord['status'], string> = {
    queued: 'clock',
    running: 'sync~spin',
    waiting: 'question',
    done: 'pass',
    failed: 'error',
    stopped: 'debug-stop',
    interrupted: 'debug-disconnect',
    applied: 'check-all',
    kept: 'git-branch',
    discarded: 'trash',
  };
  return icons[status] ?? 'circle-outline';
}

/** The elapsed time now: a running task's grows between updates. */
export function elapsedNow(t: TaskRecord, nowSeconds: number): number {
  if (t.started === null) return 0;
  return (t.finished ?? nowSeconds) - t.started;
}

/** A row: the task's first line as the label; status, current step, time and cost after it. */
export function taskRow(t: TaskRecord, nowSeconds: number): { label: string; description: string; contextValue: string } {
  const first = t.task.split('\n')[0].trim();
  const label = first.length > 60 ? `${first.slice(0, 59)}…` : first;
  const status = shownStatus(t);
  const parts: string[] = [status];
  const step = ACTIVE.has(status) ? t.step.trim() : finishedNote(t);
  if (step) parts.push(step.length > 50 ? `${step.slice(0, 49)}…` : step);
  parts.push(formatElapsed(elapsedNow(t, nowSeconds)));
  const cost = formatCost(t.cost);
  if (cost) parts.push(cost);
  return { label, description: parts.join(' · '), contextValue: `task-${status}` };
}

/** After a task: its files changed and its check, e.g. `2 files, check passed`. */
function finishedNote(t: TaskRecord): string {
  const notes: string[] = [];
  if (t.files.length) notes.push(`${t.files.length} file${t.files.length === 1 ? '' : 's'}`);
  if (t.check_result) notes.push(`check ${t.check_result.passed ? 'passed' : 'failed'}`);
  if (t.status === 'failed' && t.error) notes.push(t.error.split('\n')[0]);
  if (t.status === 'interrupted') notes.push('its server ended first, work kept');
  return notes.join(', ');
}

/** The notification worth showing for this update, if the task just finished or
 * started waiting for the user (`previous`: the status last seen). */
export function notice(t: TaskRecord, previous: TaskRecord['status'] | undefined): string | undefined {
  const status = shownStatus(t);
  if (previous === status) return undefined;
  const name = `"${taskRow(t, 0).label}"`;
  if (status === 'waiting') return `Karyi: background task ${name} waits for you: ${t.question?.description ?? t.step}`;
  if (status === 'done') {
    const note = finishedNote(t);
    return `Karyi: background task ${name} finished${note ? ` (${note})` : ''}.`;
  }
  if (status === 'failed') return `Karyi: background task ${name} failed: ${t.error ?? 'see the server log'}`;
  return undefined;
}

/** The task list the agents' commands read and update: the Agents view keeps it
 * (views/agents), the commands only see this. */
export interface TaskList {
  /** Every task known, oldest first. */
  all(): TaskRecord[];
  /** Read the whole list again from the server. */
  refresh(): Promise<void>;
  /** One task's new record (from an action's answer). */
  update(t: TaskRecord): void;
}
