# Shared by scripts/browser-test.sh and scripts/measure-kiosk.sh; sourced, not run.
#
# serve_start NAME WORK ARGS...: starts `$LUMASCAN serve ARGS --listen 127.0.0.1:0` in the background, its stdout in
# WORK/events and its stderr in WORK/stderr, and waits (up to 15 s) until it prints its "listening" event. Sets
# SERVER (its pid) and ADDRESS (HOST:PORT); exits 2 with NAME and the reason when it does not listen.
# serve_stop: stops it with SIGTERM (nothing when none runs).
# serve_work: makes a scratch folder, WORK, and an EXIT trap that stops the server and removes the folder.
SERVER=
ADDRESS=
WORK=

serve_work() {
  WORK=$(mktemp -d)
  trap 'serve_stop; rm -rf "$WORK"' EXIT
}

serve_start() {
  local name=$1 work=$2
  shift 2
  "$LUMASCAN" serve "$@" --listen 127.0.0.1:0 >"$work/events" 2>"$work/stderr" &
  SERVER=$!
  # Once bound, the server prints {"event":"listening","address":"127.0.0.1:PORT",...} on stdout.
  for _ in $(seq 1 150); do  # 15 s
    ADDRESS=$(python3 -c '
import json, sys
for line in open(sys.argv[1], errors="replace"):
    try:
        event = json.loads(line)
    except ValueError:
        continue
    if isinstance(event, dict) and event.get("event") == "listening":
        print(event.get("address", ""))
        break
' "$work/events")
    [[ -n "$ADDRESS" ]] && return 0
    if ! kill -0 "$SERVER" 2>/dev/null; then
      echo "$name: lumascan serve exited before listening; its stderr:" >&2
      cat "$work/stderr" >&2
      exit 2
    fi
    sleep 0.1
  done
  echo "$name: lumascan serve printed no \"listening\" event within 15 s" >&2
  exit 2
}

serve_stop() {
  if [[ -n "$SERVER" ]] && kill -0 "$SERVER" 2>/dev/null; then
    kill -TERM "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
  fi
}
