import { useEffect, useState } from 'react';

/**
 * A value read through an operation for a details view: undefined while it loads, the error's
 * message when it failed. Read again when `key` changes (another item) or `version` moves (the
 * state changed, so the details may have too).
 */
export function useFetched<T>(fetch: () => Promise<T>, key: string, version: number | string = 0): { value?: T; error?: string } {
  const [result, setResult] = useState<{ key: string; value?: T; error?: string }>({ key: '' });
  useEffect(() => {
    let current = true;
    fetch().then(
      (value) => { if (current) setResult({ key, value }); },
      (error: unknown) => { if (current) setResult({ key, error: (error as Error).message }); },
    );
    return () => { current = false; };
  }, [key, version]);
  return result.key === key ? result : {};
}
