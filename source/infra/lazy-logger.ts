import type { Logger } from 'pino';

/**
 * A Logger made on first use: a short command that logs nothing never loads pino (about 40 ms of
 * every CLI start). Its child loggers stay lazy until they are used too.
 */
export function lazyLogger(make: () => Logger): Logger {
  let real: Logger | undefined;
  const target = (): Logger => (real ??= make());
  return new Proxy({} as Logger, {
    get(_target, property) {
      if (property === 'child') return (...args: Parameters<Logger['child']>) => lazyLogger(() => target().child(...args) as unknown as Logger);
      const value: unknown = Reflect.get(target(), property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target()) : value;
    },
    set(_target, property, value) {
      return Reflect.set(target(), property, value);
    },
  });
}
