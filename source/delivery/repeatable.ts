/** Targets where sending again after a crash does no harm (a file or a log line); chats, comments and mail must not get a message twice. */
export function repeatableTarget(target: string): boolean {
  const kind = target.trim().split(':')[0];
  return kind === 'local' || kind === 'log' || kind === 'origin';
}
