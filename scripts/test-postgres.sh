#!/usr/bin/env bash
# A throwaway PostgreSQL for the sync tests (docs/SYNC.md, Testing): Debian's `postgresql`,
# initialised in a temporary directory, run as the `postgres` user when started by root (CI runs
# as root; PostgreSQL refuses to run as root), listening on a Unix socket in that directory only
# (no TCP port, so no port can clash with another server or another run).
#
#   scripts/test-postgres.sh start [DIR]   initdb + start; prints `export CADMIUM_TEST_POSTGRES_URL=…`
#                                          and `export CADMIUM_TEST_POSTGRES_DIR=…` for `eval`
#   scripts/test-postgres.sh stop [DIR]    stops it and removes DIR
#   scripts/test-postgres.sh pause DIR     stops the server, keeping its data (a fault: server down)
#   scripts/test-postgres.sh resume DIR    starts it again on the same data
#
# Without DIR, `start` makes one under /tmp and `stop` takes it from CADMIUM_TEST_POSTGRES_DIR.
# Installs `postgresql` with apt-get when it is missing and this runs as root.
set -euo pipefail

find_bin() {
    for d in /usr/lib/postgresql/*/bin /usr/local/bin /usr/bin; do
        if [ -x "$d/$1" ]; then echo "$d/$1"; return 0; fi
    done
    command -v "$1" 2>/dev/null || return 1
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

ensure_installed() {
    if ! find_bin initdb >/dev/null || ! find_bin pg_ctl >/dev/null; then
        if [ "$(id -u)" = 0 ]; then
            echo "installing postgresql" >&2
            (apt-get update -qq || true) >&2
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
        fi
    fi
    find_bin initdb >/dev/null && find_bin pg_ctl >/dev/null || { echo "initdb/pg_ctl not found" >&2; exit 1; }
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
        useradd --system --home-dir /var/lib/postgresql --shell /bin/false postgres >&2
    fi
}

# The server is started with no descriptor of this script's but 0-2: it lives on after the script,
# and whatever it inherits stays open as long as it runs. A caller that learns of the script's end
# from a descriptor closing (Foundation's Process does: a socket it gives the child) or that reads
# the script's output to its end would otherwise wait for the server to stop.
server_start() {
    local dir=$1
    (
        for fd in /proc/$BASHPID/fd/*; do
            fd=${fd##*/}
            if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi
        done
        as_owner "$(find_bin pg_ctl)" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off -c max_connections=200" \
            start >&2
    )
}

case "${1:-}" in
start)
    ensure_installed
    dir=${2:-$(mktemp -d /tmp/cadmium-pg.XXXXXX)}
    mkdir -p "$dir"
    chmod 755 "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    as_owner "$(find_bin initdb)" -D "$dir/data" -U cadmium -A trust --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    server_start "$dir"
    as_owner "$(find_bin psql)" -h "$dir" -U cadmium -d postgres -q -c "CREATE DATABASE cadmium" >&2
    echo "export CADMIUM_TEST_POSTGRES_DIR='$dir'"
    echo "export CADMIUM_TEST_POSTGRES_URL='postgres://cadmium@localhost:5432/cadmium?host=$dir'"
    ;;
stop)
    dir=${2:-${CADMIUM_TEST_POSTGRES_DIR:-}}
    [ -n "$dir" ] && [ -d "$dir" ] || exit 0
    as_owner "$(find_bin pg_ctl)" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
pause)
    as_owner "$(find_bin pg_ctl)" -D "$2/data" -m immediate -w stop >&2
    ;;
resume)
    server_start "$2"
    ;;
*)
    echo "usage: $0 start [DIR] | stop [DIR] | pause DIR | resume DIR" >&2
    exit 2
    ;;
esac
