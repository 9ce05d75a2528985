#!/usr/bin/env bash
# The action's install step: bubblewrap on Linux (the sandbox every command
# runs in; GitHub's Ubuntu runners have sudo without a password), then
# editwarden: from npm when a version is named, else this action's own
# checkout, built once (a runner that already holds the build skips it).
set -euo pipefail
: "${EW_ACTION_PATH:?the folder of the action (github.action_path)}"
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }

if [ "${RUNNER_OS:-$(uname -s)}" = "Linux" ]; then
  if ! command -v bwrap >/dev/null 2>&1; then
    echo "editwarden: installing bubblewrap"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap
  fi
  # Ubuntu 24.04 runners forbid unprivileged user namespaces through AppArmor; bubblewrap needs them.
  if [ "$(cat /proc/sys/kernel/apparmor_restrict_unprivileged_userns 2>/dev/null || echo 0)" = 1 ]; then
    as_root sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0
  fi
fi

if [ "${EW_VERSION:-action}" != "action" ]; then
  npm install -g --no-audit --no-fund "editwarden@${EW_VERSION}"
  echo "editwarden: $(editwarden --version) from npm"
  exit 0
fi
cd "$EW_ACTION_PATH"
if [ ! -f dist/cli-bundle/cli.mjs ] || [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund
  npm run build
fi
echo "$EW_ACTION_PATH/bin" >>"${GITHUB_PATH:?set by the runner}"
echo "editwarden: $(node bin/editwarden --version) from the action's checkout"
