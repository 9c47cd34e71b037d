import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCost, formatElapsed, notice, statusIcon, taskRow } from '../../features/agents/rows';
import { startedNote, TASK_COMMAND, taskFromChat } from '../../shared/fromChat';
import type { TaskRecord } from '../../protocol';

function task(over: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id: '20261125-184722-03d6',
    task: 'Fix the Fahrenheit conversion\nand its test',
    status: 'running',
    step: 'edit src/convert.py',
    repo: '/home/me/app',
    worktree: '/home/me/app/.git/karyi/worktrees/20261125-184722-03d6',
    branch: 'karyi/task-20261125-184722-03d6',
    base: 'a1b2c3d',
    ref: null,
    check: null,
    model: null,
    head: null,
    stop_reason: null,
    session_id: null,
    runner_pid: null,
    runner_start: null,
    created: 1000,
    started: 1000,
    finished: null,
    elapsed: 0,
    files: [],
    input_tokens: 2400,
    output_tokens: 310,
    cost: 0.0123,
    final_answer: null,
    error: null,
    check_result: null,
    question: null,
    ...over,
  };
}

describe('a background task row in the Agents view', () => {
  it('formats elapsed time in seconds, minutes and hours', () => {
    assert.equal(formatElapsed(7.9), '7s');
    assert.equal(formatElapsed(125), '2m 05s');
    assert.equal(formatElapsed(3720), '1h 02m');
    assert.equal(formatElapsed(-3), '0s');
  });
  it('formats the cost, and nothing when it is unknown', () => {
    assert.equal(formatCost(0.0123), '$0.0123');
    assert.equal(formatCost(2.5), '$2.50');
    assert.equal(formatCost(null), '');
  });
  it('shows a running task\'s first line, status, step, live elapsed time and cost', () => {
    const row = taskRow(task(), 1065);
    assert.equal(row.label, 'Fix the Fahrenheit conversion');
    assert.equal(row.description, 'running · edit src/convert.py · 1m 05s · $0.0123');
    assert.equal(row.contextValue, 'task-running');
  });
  it('shows a finished task\'s files and check instead of the step, timed to its end', () => {
    const done = task({
      status: 'done',
      finished: 1012,
      files: ['src/convert.py', 'tests/test_convert.py'],
      cost: null,
      check_result: { command: 'pytest -q', exit_code: 0, passed: true, output: '' },
    });
    assert.equal(taskRow(done, 5000).description, 'done · 2 files, check passed · 12s');
    assert.equal(statusIcon('done'), 'pass');
  });
  it('cuts a long first line', () => {
    assert.equal(taskRow(task({ task: 'x'.repeat(80) }), 1000).label, `${'x'.repeat(59)}…`);
  });
  it('notifies once when a task finishes or waits for the user, not on every update', () => {
    const waiting = task({ status: 'waiting', question: { tool: 'command', description: 'Run `pytest -q`' } });
    assert.equal(notice(waiting, 'running'), 'Karyi: background task "Fix the Fahrenheit conversion" waits for you: Run `pytest -q`');
    assert.equal(notice(waiting, 'waiting'), undefined);
    assert.equal(notice(task(), 'queued'), undefined);
    const done = task({ status: 'done', files: ['src/convert.py'], finished: 1009 });
    assert.equal(notice(done, 'running'), 'Karyi: background task "Fix the Fahrenheit conversion" finished (1 file).');
    assert.match(notice(task({ status: 'failed', error: 'model unreachable', finished: 1001 }), 'running') ?? '', /failed: model unreachable/);
  });
});

describe('a task whose check is still running', () => {
  it('shows as running with the check as its step, and notifies only when the check is done', () => {
    const checking = task({ status: 'done', step: 'check: pytest -q', files: ['src/convert.py'] });
    assert.equal(taskRow(checking, 1003).description, 'running · check: pytest -q · 3s · $0.0123');
    assert.equal(notice(checking, 'running'), undefined);
    const finished = { ...checking, step: '', finished: 1004, check_result: { command: 'pytest -q', exit_code: 0, passed: true, output: '' } };
    assert.match(notice(finished, 'running') ?? '', /finished \(1 file, check passed\)/);
  });
});

describe('a task whose server ended while it ran', () => {
  it('shows as interrupted with its kept work, reviewable, and is not announced again by the view', () => {
    const cut = task({ status: 'interrupted', step: '', finished: 1030, files: ['src/convert.py'], error: 'interrupted: …' });
    assert.equal(taskRow(cut, 5000).description, 'interrupted · 1 file, its server ended first, work kept · 30s · $0.0123');
    assert.equal(taskRow(cut, 5000).contextValue, 'task-interrupted');
    assert.equal(statusIcon('interrupted'), 'debug-disconnect');
    assert.equal(notice(cut, 'running'), undefined); // the server's own message tells the user, once
  });
});

describe('/task in the chat input', () => {
  it('takes the rest of the message as the task, a bare /task asks, anything else is a turn', () => {
    assert.equal(taskFromChat('/task Fix the Kelvin constant'), 'Fix the Kelvin constant');
    assert.equal(taskFromChat('  /task  two\nlines '), 'two\nlines');
    assert.equal(taskFromChat('/task'), '');
    assert.equal(taskFromChat('/tasks please'), undefined);
    assert.equal(taskFromChat('run /task later'), undefined);
    assert.equal(TASK_COMMAND.name, 'task');
  });
  it('says in the chat where the started task is followed', () => {
    assert.equal(
      startedNote({ task: 'Fix it\nplease', branch: 'karyi/task-1' }),
      'Started background task "Fix it" in its own worktree (branch karyi/task-1): follow it, review and apply it in the Agents view.',
    );
  });
});
