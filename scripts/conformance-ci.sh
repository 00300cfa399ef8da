#!/usr/bin/env bash
# The official MCP conformance client scenarios that pass against our MCP layer (README "MCP client"
# and "MCP OAuth"), four at a time (each takes about three seconds; concurrent OAuth logins take
# different callback ports). Two suite versions are installed (stable and the 2026 pre-release as
# `conformance-next`), and both ship a `conformance` bin, so each is called by its own path. The auth
# scenarios that fail, and why, are listed in the README. A failing scenario prints its whole output.
set -euo pipefail
cd "$(dirname "$0")/.."
stable=node_modules/@modelcontextprotocol/conformance/dist/index.js
next=node_modules/@modelcontextprotocol/conformance-next/dist/index.js
run_one() {
  local output
  if output=$(node "$1" client --command "npm run -s conformance:client --" --scenario "$2" --timeout 60000 2>&1); then
    echo "passed: $2 ($(basename "$(dirname "$(dirname "$1")")"))"
  else
    printf '%s\nFAILED: %s\n' "$output" "$2"
    exit 255
  fi
}
export -f run_one
{
  for scenario in initialize tools_call elicitation-sep1034-client-defaults sse-retry; do
    echo "$stable $scenario"
  done
  for scenario in metadata-default metadata-var1 metadata-var2 metadata-var3 basic-cimd \
    scope-from-www-authenticate scope-from-scopes-supported scope-omitted-when-undefined scope-step-up scope-retry-limit \
    token-endpoint-auth-basic token-endpoint-auth-post token-endpoint-auth-none pre-registration \
    2025-03-26-oauth-endpoint-fallback resource-mismatch offline-access-scope offline-access-not-supported; do
    echo "$stable auth/$scenario"
  done
  # Only in the 2026 pre-release (or fixed there): issuer checks (RFC 9207), AS migration, metadata back-compat.
  for scenario in iss-supported iss-not-advertised iss-supported-missing iss-wrong-issuer iss-unexpected iss-normalized \
    metadata-issuer-mismatch authorization-server-migration 2025-03-26-oauth-metadata-backcompat; do
    echo "$next auth/$scenario"
  done
} | xargs -P 4 -L 1 bash -c 'run_one "$0" "$1"'
