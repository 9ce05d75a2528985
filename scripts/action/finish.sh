#!/usr/bin/env bash
# The action's last step (always runs): the job ends with the command's exit
# code, named in editwarden's meaning as an annotation.
set -euo pipefail
code="${EW_EXIT:-}"
if [ -z "$code" ]; then
  echo "::error title=editwarden::the command did not run (an earlier step failed)"
  exit 1
fi
case "$code" in
  0) echo "editwarden: success" ;;
  1) echo "::error title=editwarden::a request was refused or failed (exit 1)" ;;
  2) echo "::error title=editwarden::a constraint was violated (exit 2); see the job summary" ;;
  3) echo "::error title=editwarden::verification failed (exit 3)" ;;
  4) echo "::error title=editwarden::hard stop: the agent got stuck (exit 4)" ;;
  *) echo "::error title=editwarden::the command exited $code" ;;
esac
exit "$code"
