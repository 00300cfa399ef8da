/** Keys whose values are secrets wherever they appear (config show, logs, --json output). */
const secretKey = /(^|[_-])(secret|api[_-]?key|token|password|passphrase|client[_-]secret|authorization)$/i;
/** Environment variable and header names that usually carry credentials (mcp_servers.*.env, *.headers). */
const secretEnvName = /(TOKEN|SECRET|PASSWORD|PASSWD|API[_-]?KEY|CREDENTIAL|PRIVATE[_-]KEY)/i;
const bearer = /\bbearer\s/i;
const onlyReference = /^\$\{[^{}]+\}$/;

export const MASK = '********';

export function isSecretKey(key: string): boolean {
  return secretKey.test(key);
}

/**
 * A deep copy with secret values replaced by a mask. A value that is only a `${VAR}` reference
 * is kept: it names where the secret lives and is not itself secret.
 */
export function maskSecrets<T>(value: T, parentKey = ''): T {
  if (value instanceof Error) return maskSecrets(errorFields(value), parentKey) as T;
  if (Array.isArray(value)) {
    // client_cert: [cert file, key file, key passphrase]: the passphrase is the secret.
    if (parentKey === 'client_cert') return value.map((item, index) => (index === 2 ? maskValue(item) : item)) as T;
    return value.map((item) => (isSecretKey(parentKey) ? maskValue(item) : maskSecrets(item, parentKey))) as T;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (isSecretKey(key) || ((parentKey === 'env' || parentKey === 'headers') && secretEnvName.test(key))) out[key] = maskValue(item);
      else if (typeof item === 'string' && bearer.test(item)) out[key] = item.replace(/(\bbearer\s+)\S+/gi, `$1${MASK}`);
      else out[key] = maskSecrets(item, key);
    }
    return out as T;
  }
  return value;
}

function maskValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskValue);
  if (typeof value === 'string') return value === '' || onlyReference.test(value) ? value : MASK;
  if (value === null || value === undefined || typeof value === 'boolean') return value;
  if (typeof value === 'object') return maskSecrets(value);
  return MASK;
}

/** Errors keep their message and stack (non-enumerable, so a plain copy would drop them). */
function errorFields(error: Error): Record<string, unknown> {
  return { type: error.name, message: error.message, stack: error.stack, ...Object.fromEntries(Object.entries(error)) };
}
