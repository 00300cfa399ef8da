import { Box, Text } from 'ink';
import { LineInput } from './LineInput.js';
import { useState } from 'react';
import { installSummary, type InstallLink } from '../../operations/mcp-links.js';
import { useKeys } from '../input-router.js';
import { theme } from '../theme.js';

export type InstallDecision = { action: 'install'; name: string } | { action: 'cancel' };

const namePattern = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The one confirmation before an install link writes anything: name, pretty-printed config, and
 * for a command server the exact command line it would run. An existing name is never overwritten:
 * the operator types a new one or cancels.
 */
export function InstallConfirmation({ link, existingNames, onDecision }: { link: InstallLink; existingNames: readonly string[]; onDecision: (decision: InstallDecision) => void }) {
  const taken = existingNames.includes(link.name);
  const [renaming, setRenaming] = useState(taken);
  const [name, setName] = useState(taken ? '' : link.name);
  const [problem, setProblem] = useState<string | undefined>();
  const summary = installSummary(link);
  const { command } = summary;

  const submitName = (value: string) => {
    const candidate = value.trim();
    if (!namePattern.test(candidate)) return setProblem('A name is 1-64 characters of A-Z a-z 0-9 . _ -');
    if (existingNames.includes(candidate)) return setProblem(`"${candidate}" exists too; it will not be overwritten`);
    onDecision({ action: 'install', name: candidate });
  };

  const { top } = useKeys((input, key) => {
    if (key.escape) return onDecision({ action: 'cancel' });
    if (renaming) return;
    if (input === 'y' || input === 'Y') onDecision({ action: 'install', name: link.name });
    else if (input === 'n' || input === 'N') onDecision({ action: 'cancel' });
    else if (input === 'r') setRenaming(true);
  }, { layer: 'overlay', modal: true });

  return (
    <Box flexDirection="column" borderStyle="round" borderColor={command ? theme.caution : theme.accent} paddingX={1}>
      <Text bold>Install MCP server "{summary.name}" ({link.transport === 'stdio' ? 'local command' : 'remote URL'})?</Text>
      <Box marginY={1} flexDirection="column">
        {summary.config.map((line, index) => <Text key={index}>{line}</Text>)}
      </Box>
      {summary.envNames.length > 0 ? <Text>It sets these environment variables for the server (values masked): {summary.envNames.join(', ')}</Text> : null}
      {command ? (
        <Box flexDirection="column" borderStyle="double" borderColor={theme.caution} paddingX={1} marginBottom={1}>
          <Text color={theme.caution} bold>CAUTION: this server runs a program on this machine, with your rights:</Text>
          <Text color={theme.caution}>  {command}</Text>
          <Text color={theme.caution}>Install it only if you trust where this link came from.</Text>
        </Box>
      ) : null}
      {taken ? <Text color={theme.warn}>A server named "{summary.name}" already exists and will not be overwritten.</Text> : null}
      {renaming ? (
        <Box flexDirection="column">
          <Box>
            <Text>New name: </Text>
            <LineInput value={name} focus={top} onChange={(value) => { setName(value); setProblem(undefined); }} onSubmit={submitName} />
          </Box>
          {problem ? <Text color={theme.error}>{problem}</Text> : null}
          <Text color={theme.dim}>Enter installs under this name · Esc cancels</Text>
        </Box>
      ) : (
        <Text color={theme.dim}>y install · r install under another name · n or Esc cancel</Text>
      )}
    </Box>
  );
}
