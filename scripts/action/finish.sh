#!/usr/bin/env bash
# The action's last step (always runs): ends the job as judge.sh says — the
# command's exit code, or for a command that exited 0 the fail-on judgement
# of what the log recorded during the run — named as an annotation.
set -euo pipefail
# shellcheck source=judge.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/judge.sh"
judge "${EW_EXIT:-}" "${EW_FAIL_ON:-violation}" "${EW_REFUSALS:-}" "${EW_VIOLATIONS:-}"
if [ "$JUDGED_CODE" = 0 ]; then
  echo "editwarden: $JUDGED_TEXT"
else
  echo "::error title=editwarden::$JUDGED_TEXT"
fi
exit "$JUDGED_CODE"
