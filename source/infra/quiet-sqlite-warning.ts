/**
 * node:sqlite prints an ExperimentalWarning on Node 22. Drop that one warning and let every
 * other warning through. Must run before node:sqlite is first loaded.
 */
export function silenceSqliteExperimentalWarning(): void {
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type ?? (warning as Error).name;
    if (type === 'ExperimentalWarning' && /SQLite/i.test(text)) return;
    emit(warning, ...rest);
  }) as typeof process.emitWarning;
}
