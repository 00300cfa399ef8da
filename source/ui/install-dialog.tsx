import { render } from 'ink';
import type { InstallLink } from '../mcp/install-link.js';
import { InstallConfirmation, type InstallDecision } from './components/InstallConfirmation.js';
import { InputRouter } from './input-router.js';
import { terminalIsInteractive } from './terminal.js';

/** `switchboard mcp install` in a terminal: the confirmation dialog on its own, resolved by the operator's keys. */
export async function confirmInstall(link: InstallLink, existingNames: readonly string[]): Promise<InstallDecision> {
  let decided: InstallDecision = { action: 'cancel' };
  const app = render(<InputRouter><InstallConfirmation link={link} existingNames={existingNames} onDecision={(decision) => { decided = decision; app.unmount(); }} /></InputRouter>, { exitOnCtrlC: true, interactive: terminalIsInteractive() });
  await app.waitUntilExit();
  return decided;
}
