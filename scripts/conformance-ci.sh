#!/usr/bin/env bash
# The official MCP conformance client scenarios that pass against our MCP layer (README "MCP client"
# and "MCP OAuth"). Each runs in about three seconds. Two suite versions are installed (stable and the
# 2026 pre-release as `conformance-next`), and both ship a `conformance` bin, so each is called by its
# own path. The auth scenarios of the stable suite that fail (and why) are listed in the README.
set -euo pipefail
cd "$(dirname "$0")/.."
stable=node_modules/@modelcontextprotocol/conformance/dist/index.js
next=node_modules/@modelcontextprotocol/conformance-next/dist/index.js
run() {
  node "$1" client --command "npm run -s conformance:client --" --scenario "$2" --timeout 60000
}
for scenario in initialize tools_call elicitation-sep1034-client-defaults sse-retry; do
  run "$stable" "$scenario"
done
for scenario in metadata-default metadata-var1 metadata-var2 metadata-var3 basic-cimd \
  scope-from-www-authenticate scope-from-scopes-supported scope-omitted-when-undefined scope-step-up scope-retry-limit \
  token-endpoint-auth-basic token-endpoint-auth-post token-endpoint-auth-none pre-registration \
  2025-03-26-oauth-endpoint-fallback resource-mismatch offline-access-scope offline-access-not-supported; do
  run "$stable" "auth/$scenario"
done
# Only in the 2026 pre-release: issuer checks of the authorization response (RFC 9207) and AS migration.
for scenario in iss-supported iss-not-advertised iss-supported-missing iss-wrong-issuer iss-unexpected iss-normalized \
  metadata-issuer-mismatch authorization-server-migration 2025-03-26-oauth-metadata-backcompat; do
  run "$next" "auth/$scenario"
done
