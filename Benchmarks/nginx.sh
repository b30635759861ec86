# Sourced by run.sh and compare.sh: a temporary folder ($work) removed on exit, and nginx
# serving it on a free port of 127.0.0.1 with nginx.conf.template (stopped by its pid on exit).
#
#   source "$(dirname "$0")/nginx.sh"   # sets work; then write the files to serve into it
#   start_nginx                         # sets url (http://127.0.0.1:PORT/)

work=$(mktemp -d)
chmod 755 "$work"  # nginx's workers run as another user
pid_file="$work/nginx.pid"
cleanup() {
  if [[ -s "$pid_file" ]]; then kill "$(cat "$pid_file")" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

start_nginx() {
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  sed -e "s|@ROOT@|$work|g" -e "s|@PORT@|$port|g" "$(dirname "${BASH_SOURCE[0]}")/nginx.conf.template" \
    >"$work/nginx.conf"
  nginx -e "$work/error.log" -c "$work/nginx.conf"
  for _ in $(seq 50); do [[ -s "$pid_file" ]] && break; sleep 0.1; done
  url="http://127.0.0.1:$port/"
}
