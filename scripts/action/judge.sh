#!/usr/bin/env bash
# The action's judgement, in one place (sourced by report.sh for the summary's
# first line and by finish.sh for the step's exit code): from the command's
# exit code, input fail-on and the counts the report step took from the log.
#   - a command that exited non-zero ends the job with its code (named in
#     editwarden's meaning);
#   - a command that exited 0 is judged by what the log recorded during the
#     run: fail-on `violation` fails on a violation (exit 2), `refusal` on a
#     violation (2) or a refusal (1), `never` adds nothing. A client such as
#     `claude -p` exits 0 whatever its hooks refused: this is what sees it.
#   - counts that are missing or not numbers fail closed (exit 1).
# judge CODE FAIL_ON REFUSALS VIOLATIONS -> sets JUDGED_CODE and JUDGED_TEXT.
judge() {
  local code="$1" fail_on="$2" refusals="$3" violations="$4"
  JUDGED_CODE=0
  case "$code" in
    '') JUDGED_CODE=1 JUDGED_TEXT="the command did not run (an earlier step failed)" ;;
    0) ;;
    1) JUDGED_CODE=1 JUDGED_TEXT="a request was refused or failed (exit 1)" ;;
    2) JUDGED_CODE=2 JUDGED_TEXT="a constraint was violated (exit 2); see the job summary" ;;
    3) JUDGED_CODE=3 JUDGED_TEXT="verification failed (exit 3)" ;;
    4) JUDGED_CODE=4 JUDGED_TEXT="hard stop: the agent got stuck (exit 4)" ;;
    *) JUDGED_CODE="$code" JUDGED_TEXT="the command exited $code" ;;
  esac
  [ "$JUDGED_CODE" != 0 ] && return 0
  if [ "$fail_on" = never ]; then
    JUDGED_TEXT="success (fail-on: never)"
    return 0
  fi
  if ! [[ "$refusals" =~ ^[0-9]+$ && "$violations" =~ ^[0-9]+$ ]]; then
    JUDGED_CODE=1 JUDGED_TEXT="the run could not be judged: the report step did not count the log (fail-on: $fail_on)"
  elif [ "$violations" -gt 0 ]; then
    JUDGED_CODE=2 JUDGED_TEXT="$violations violation(s) recorded though the command exited 0 (fail-on: $fail_on); see the job summary"
  elif [ "$fail_on" = refusal ] && [ "$refusals" -gt 0 ]; then
    JUDGED_CODE=1 JUDGED_TEXT="$refusals refusal(s) recorded though the command exited 0 (fail-on: refusal); see the job summary"
  else
    JUDGED_TEXT="success ($refusals refusal(s), $violations violation(s); fail-on: $fail_on)"
  fi
}
