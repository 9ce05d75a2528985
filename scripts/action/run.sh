#!/usr/bin/env bash
# The action's run step: the user's command, whose exit code is kept (not
# acted on yet) so that the report is always published first; finish.sh
# then ends the job with it. Every input arrives in the environment (never
# spliced into this script by `${{ }}`), and the command runs as `bash -c`.
set -uo pipefail
: "${EW_RUN:?the command to run (input 'run')}"
case "${EW_FAIL_ON:-violation}" in
  violation | refusal | never) ;;
  *)
    echo "::error title=editwarden::input fail-on must be violation, refusal or never"
    exit 64
    ;;
esac
# What this run writes is what gets published: the report step publishes only files written from now on.
started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "started=$started" >>"${GITHUB_OUTPUT:?set by the runner}"
# editwarden's state is never committed (it ignores itself). A checkout that ships one — a link, a file,
# or tracked files — is not editwarden's: it is moved out of the project, never read, never published.
if [ -e .editwarden ] || [ -L .editwarden ]; then
  if [ -L .editwarden ] || [ ! -d .editwarden ] || [ -n "$(git ls-files -- .editwarden 2>/dev/null | head -n 1)" ]; then
    aside="${RUNNER_TEMP:?set by the runner}/editwarden-state-from-checkout-$$"
    mv -- .editwarden "$aside"
    echo "::warning title=editwarden::the checkout held a .editwarden that editwarden did not write; it was moved out of the project and is not published"
  fi
fi
echo "editwarden: running in $(pwd)"
bash -c "$EW_RUN"
code=$?
echo "exit-code=$code" >>"$GITHUB_OUTPUT"
echo "editwarden: the command exited $code"
exit 0
