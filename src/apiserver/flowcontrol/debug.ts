/**
 * upstream's /debug/api_priority_and_fairness/ dumps: one row per priority
 * level (dump_priority_levels) and one per queue (dump_queues), as
 * comma-separated columns.
 */
import type { APFController } from './controller.js';

/** The dump_priority_levels table. */
export function dumpPriorityLevels(apf: APFController): string {
  const rows = [
    'PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests',
  ];
  for (const l of apf.priorityLevels()) {
    const q = l.queues;
    const active = q === undefined ? 0 : q.dumpQueues().filter((x) => x.waiting > 0 || x.executing > 0).length;
    const waiting = q?.requestsWaiting ?? 0;
    const executing = q?.requestsExecuting ?? l.exemptSeats;
    rows.push(
      [
        l.name,
        active,
        waiting + executing === 0,
        false,
        waiting,
        executing,
        l.dispatched,
        l.rejected,
        l.timedOut,
        l.cancelled,
      ].join(', '),
    );
  }
  return rows.join('\n') + '\n';
}

/** The dump_queues table. */
export function dumpQueues(apf: APFController): string {
  const rows = ['PriorityLevelName, Index, PendingRequests, ExecutingRequests, SeatsInUse, NextDispatchR'];
  for (const l of apf.priorityLevels()) {
    if (l.queues === undefined) {
      rows.push([l.name, '<none>', '<none>', '<none>', '<none>', '<none>'].join(', '));
      continue;
    }
    for (const q of l.queues.dumpQueues())
      rows.push(
        [l.name, q.index, q.waiting, q.executing, q.seatsInUse, `${(q.nextDispatchR / 1000).toFixed(8)}ss`].join(', '),
      );
  }
  return rows.join('\n') + '\n';
}
