import path from 'node:path';

/** What `${...}` references resolve against (spec 2.4). */
export interface InterpolationScope {
  /** $SWITCHBOARD_HOME/.env values: looked up before the process environment. */
  secrets: Readonly<Record<string, string | undefined>>;
  env: Readonly<Record<string, string | undefined>>;
  userHome: string;
  workspaceFolder: string;
  pathSeparator?: string;
}

const reference = /\$\{([^{}]*)\}/g;

/**
 * Resolves `${...}` references in one string. Pure: the scope carries every input.
 * `${VAR}` / `${env:VAR}` look in the secret scope, then the environment; unset keeps the
 * literal placeholder; names are case-sensitive; unknown forms fall through to the lookup.
 */
export function interpolate(value: string, scope: InterpolationScope): string {
  const separator = scope.pathSeparator ?? path.sep;
  return value.replace(reference, (placeholder, inner: string) => {
    switch (inner) {
      case 'userHome': return scope.userHome;
      case 'workspaceFolder': return scope.workspaceFolder;
      case 'workspaceFolderBasename': return basename(scope.workspaceFolder, separator);
      case 'pathSeparator':
      case '/': return separator;
    }
    const name = inner.startsWith('env:') ? inner.slice(4) : inner;
    return lookup(name, scope) ?? placeholder;
  });
}

/** Applies `interpolate` to every string inside a JSON value; other values are kept. */
export function interpolateDeep<T>(value: T, scope: InterpolationScope, skip: (keyPath: string[]) => boolean = () => false, keyPath: string[] = []): T {
  if (skip(keyPath)) return value;
  if (typeof value === 'string') return interpolate(value, scope) as T;
  if (Array.isArray(value)) return value.map((item, index) => interpolateDeep(item, scope, skip, [...keyPath, String(index)])) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = interpolateDeep(item, scope, skip, [...keyPath, key]);
    return out as T;
  }
  return value;
}

function lookup(name: string, scope: InterpolationScope): string | undefined {
  if (name === '') return undefined;
  if (Object.hasOwn(scope.secrets, name)) return scope.secrets[name];
  if (Object.hasOwn(scope.env, name)) return scope.env[name];
  return undefined;
}

function basename(folder: string, separator: string): string {
  const trimmed = folder.endsWith(separator) && folder.length > 1 ? folder.slice(0, -separator.length) : folder;
  const index = trimmed.lastIndexOf(separator);
  return index === -1 ? trimmed : trimmed.slice(index + separator.length);
}
