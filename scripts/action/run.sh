#!/usr/bin/env bash
# The action's run step: the user's command, whose exit code is kept (not
# acted on yet) so that the report is always published first; finish.sh
# then ends the job with it.
set -uo pipefail
: "${EW_RUN:?the command to run (input 'run')}"
echo "editwarden: running in $(pwd): $EW_RUN"
bash -c "$EW_RUN"
code=$?
echo "exit-code=$code" >>"${GITHUB_OUTPUT:?set by the runner}"
echo "editwarden: the command exited $code"
exit 0
