import { Box, Text } from 'ink';
import type { ConfigIssue } from '../../config/validate.js';
import { fit } from '../format.js';
import { theme } from '../theme.js';

/**
 * config.json came back from $EDITOR invalid: every problem with its key (a problem of the whole
 * file, such as JSON that does not parse, has none); Enter or E opens it again, any other key leaves it.
 */
export function ConfigProblems({ issues, reason, width, height }: { issues: readonly ConfigIssue[]; reason: string; width: number; height: number }) {
  const inner = Math.max(10, width - 4);
  const shown = issues.slice(0, Math.max(1, height - 5));
  return (
    <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor={theme.error} paddingX={1} width={width}>
      <Text bold color={theme.error}>{fit(reason.split(':')[0] ?? reason, inner)}</Text>
      {shown.map((issue, index) => <Text key={index}>{fit(issue.path ? `${issue.path}: ${issue.reason}` : issue.reason, inner)}</Text>)}
      {issues.length > shown.length ? <Text color={theme.dim}>{`... ${issues.length - shown.length} more`}</Text> : null}
      <Text color={theme.dim}>{fit('Enter or E reopens config.json in $EDITOR · any other key leaves it (the previous config stays in effect)', inner)}</Text>
    </Box>
  );
}
