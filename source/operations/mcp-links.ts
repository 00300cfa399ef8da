/**
 * Install links (spec 4.3) for the front ends: parse and build them, register the OS handler. The
 * install itself is `mcp.add` (checked as the gateway checks config at start).
 */
export { buildInstallLink, commandLine, installSummary, parseInstallLink, type InstallLink } from '../mcp/install-link.js';
export { registerLinkHandler } from '../mcp/link-handler.js';
