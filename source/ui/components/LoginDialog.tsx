import { Box, Text } from 'ink';
import { LineInput } from './LineInput.js';
import { useEffect, useRef, useState } from 'react';
import type { McpCommands } from '../../mcp/gateway-component.js';
import type { LoginHandle } from '../../mcp/oauth-login.js';
import { useKeys } from '../input-router.js';
import { theme } from '../theme.js';

interface Waiting {
  url: string;
  redirectUrl: string;
  portNote: string;
  browserOpened: boolean;
}

/**
 * `l` on an `auth: oauth` server: runs the core login, shows the authorization URL (and opens a browser
 * when there is a display), and takes the redirect address pasted from another machine. The login ends
 * with the browser reaching the callback, a pasted address, Esc, or the core's five-minute timeout.
 */
export function LoginDialog({ server, login, openUrl, copy, width, onClose }: {
  server: string;
  login: McpCommands['login'];
  /** Opens a browser on the URL when this machine has a display; says whether it did. */
  openUrl: (url: string) => boolean;
  copy: (text: string, what: string) => void;
  width: number;
  onClose: (notice: string) => void;
}) {
  const [waiting, setWaiting] = useState<Waiting | undefined>();
  const [notices, setNotices] = useState<string[]>([]);
  const [pasted, setPasted] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const handle = useRef<LoginHandle | undefined>(undefined);
  const controller = useRef(new AbortController());

  useEffect(() => {
    const { signal } = controller.current;
    let started: LoginHandle;
    try {
      started = login(server, {
        signal,
        onNotice: (text) => setNotices((list) => [...list.slice(-2), text]),
        onUrl: (url, listener) => setWaiting({
          url,
          redirectUrl: listener.redirectUrl,
          portNote: listener.pinned ? 'pinned port' : `random port: ${listener.randomBecause ?? 'set by oauth.redirect_port or oauth.redirect_uri'}`,
          browserOpened: openUrl(url),
        }),
      });
    } catch (error) {
      onClose(`Login to ${server} not started: ${(error as Error).message}`);
      return;
    }
    handle.current = started;
    started.done.then(
      (result) => onClose(result.notNeeded
        ? `${server} answered without asking for authorization: nothing to log in.`
        : `Logged in to ${server}${result.expiresAt ? `; the access token expires at ${result.expiresAt}` : ''}. Reconnecting it.`),
      (error: unknown) => { if (!signal.aborted) onClose(`Login to ${server} failed: ${(error as Error).message}`); },
    );
    return () => controller.current.abort();
  }, []); // One login per dialog: it is keyed by the server.

  const { top } = useKeys((_input, key) => {
    if (key.escape) {
      controller.current.abort();
      onClose(`Login to ${server} cancelled; nothing was stored.`);
    } else if (key.tab && waiting) copy(waiting.url, 'the authorization address');
  }, { layer: 'overlay', modal: true });

  const submit = (value: string) => {
    if (!handle.current || value.trim() === '') return;
    const offered = handle.current.offer(value.trim());
    if (offered.ok) {
      setProblem(undefined);
      setNotices((list) => [...list.slice(-2), 'Redirect accepted; exchanging the code for tokens...']);
    } else setProblem(`Not accepted: ${offered.reason}`);
    setPasted('');
  };

  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.accent} paddingX={1} width={width}>
      <Text bold>Log in to {server} (OAuth)</Text>
      {waiting ? (
        <Box flexDirection="column">
          <Text>{waiting.browserOpened ? 'A browser opened at this address; authorize Switchboard there:' : 'Open this address in a browser and authorize Switchboard:'}</Text>
          <Text color={theme.accent}>{waiting.url}</Text>
          <Text color={theme.dim}>Waiting up to 5 minutes for the redirect to {waiting.redirectUrl} ({waiting.portNote}).</Text>
          <Text>Browser on another machine? Paste the address it ends up at (it holds code= and state=):</Text>
          <Box>
            <Text color={theme.accent}>{'> '}</Text>
            <LineInput value={pasted} focus={top} onChange={(value) => { setPasted(value); setProblem(undefined); }} onSubmit={submit} />
          </Box>
        </Box>
      ) : <Text color={theme.dim}>Discovering the authorization server...</Text>}
      {problem ? <Text color={theme.error}>{problem}</Text> : null}
      {notices.map((text, index) => <Text key={index} color={theme.warn}>{text}</Text>)}
      <Text color={theme.dim}>Enter submits a pasted address · Tab copies the authorization address · Esc cancels</Text>
    </Box>
  );
}
