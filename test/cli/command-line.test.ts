import { describe, expect, it } from 'vitest';
import { asksForInfo, commandName, runsHeadlessGateway } from '../../source/cli/command-line.js';

const terminal = () => true;
const noTerminal = () => false;

describe('reading the command line before commander loads', () => {
  it('names the command past global options and their values', () => {
    expect(commandName(['--home', 'gateway', 'cron', 'list'])).toBe('cron');
    expect(commandName(['--connect', 'tcp://h:1', 'status'])).toBe('status');
    expect(commandName(['--no-color'])).toBeUndefined();
    expect(asksForInfo(['cron', '--help'])).toBe(true);
  });

  it('runs the headless gateway for `gateway`, and for no command without a terminal; never for help', () => {
    expect(runsHeadlessGateway(['gateway'], terminal)).toBe(true);
    expect(runsHeadlessGateway(['--home', '/h', 'gateway'], terminal)).toBe(true);
    expect(runsHeadlessGateway([], noTerminal)).toBe(true);
    expect(runsHeadlessGateway([], terminal)).toBe(false);
    expect(runsHeadlessGateway(['--home', 'gateway'], terminal)).toBe(false); // a home called "gateway": the console
    expect(runsHeadlessGateway(['cron', 'list'], noTerminal)).toBe(false);
    expect(runsHeadlessGateway(['gateway', '--help'], noTerminal)).toBe(false);
  });
});
