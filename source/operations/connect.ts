import type { ApprovalPolicy } from '../agent/approval-queue.js';
import type { HomeLayout } from '../config/home.js';
import { runningGateway, type GatewayLockInfo } from '../gateway/lock.js';
import { connectControl, probeControl, type ControlClient, type ControlClientOptions, type ControlTarget } from '../control/client.js';
import { attachedLink, type GatewayLink, type LinkStatus } from './link.js';
import type { Operations } from './index.js';
import type { LocalOperations } from './local.js';
import { createRemoteOperations } from './remote.js';
import type { GatewayHello } from './state.js';

/**
 * Where a front end's operations run: `gateway` through the control channel of the gateway that
 * runs on this home (or the one named by `--connect`), `local` in this process while none runs.
 */
export type OperatorSession =
  | { where: 'gateway'; operations: Operations; hello: GatewayHello; client: ControlClient; close(): Promise<void> }
  | { where: 'local'; operations: Operations; local: LocalOperations; close(): Promise<void> };

export interface SessionOptions {
  version: string;
  /** `--connect tcp://host:port` with its token: never falls back to local. */
  connect?: { url: string; token?: string };
  /** A local run at a terminal asks there (`interactive`); the default is the headless policy. */
  approvalPolicy?: ApprovalPolicy;
  /** Dial again after a lost connection (consoles). */
  reconnect?: boolean;
  onStatus?: ControlClientOptions['onStatus'];
}

/**
 * Whether a gateway runs on this home: its hello when it answers on the control socket, else the
 * lock's holder when one holds the home but does not answer (starting, stopping, or stuck).
 */
export async function gatewayOnHome(home: HomeLayout): Promise<{ hello: GatewayHello } | { locked: GatewayLockInfo } | undefined> {
  const hello = await runningGatewayOn(home);
  if (hello) return { hello };
  const locked = runningGateway(home.lockFile);
  return locked ? { locked } : undefined;
}

/** The running gateway's hello, or undefined when none answers on this home's socket. */
export async function runningGatewayOn(home: HomeLayout, timeoutMs = 1_000): Promise<GatewayHello | undefined> {
  return (await probeControl(home.controlSocket, timeoutMs)) as unknown as GatewayHello | undefined;
}

export async function attachToGateway(target: ControlClientOptions): Promise<Extract<OperatorSession, { where: 'gateway' }>> {
  const client = await connectControl(target);
  const hello = (await client.hello()) as unknown as GatewayHello;
  return { where: 'gateway', operations: createRemoteOperations((method, params) => client.call(method, params)), hello, client, close: () => client.close() };
}

export async function openSession(home: HomeLayout, options: SessionOptions): Promise<OperatorSession> {
  const common = { reconnect: options.reconnect ?? false, ...(options.onStatus ? { onStatus: options.onStatus } : {}) };
  if (options.connect) return attachToGateway({ url: options.connect.url, ...(options.connect.token ? { token: options.connect.token } : {}), ...common });
  if (await runningGatewayOn(home)) return attachToGateway({ socketPath: home.controlSocket, ...common });
  // Loaded only when no gateway answers: a command that reaches one never loads the local core.
  const { createLocalOperations } = await import('./local.js');
  const local = createLocalOperations(home, { version: options.version, ...(options.approvalPolicy ? { approvalPolicy: options.approvalPolicy } : {}) });
  return { where: 'local', operations: local.operations, local, close: () => local.close() };
}

/** A console attached over the control channel: dials again by itself when the gateway goes away and comes back. */
export async function attachLink(target: ControlTarget): Promise<GatewayLink> {
  let forward: (status: LinkStatus, detail?: string) => void = () => {};
  const client = await connectControl({ ...target, reconnect: true, onStatus: (status, detail) => forward(status, detail) });
  const hello = (await client.hello()) as unknown as GatewayHello;
  const link = attachedLink(client, createRemoteOperations((method, params) => client.call(method, params)), hello, !('socketPath' in target));
  forward = link.onClientStatus;
  return link;
}
