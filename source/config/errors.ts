/** A fatal problem an operator must fix; `hint` says what to do next (STYLE.md section 3). */
export class ConfigError extends Error {
  constructor(readonly code: string, message: string, readonly hint?: string, readonly details: string[] = []) {
    super(message);
    this.name = 'ConfigError';
  }
}
