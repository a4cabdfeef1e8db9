#!/usr/bin/env bash
# Serves a folder over HTTP on 127.0.0.1:PORT with a minimal nginx run as the current user.
# Usage: bench/nginx.sh start DIR PORT | bench/nginx.sh stop DIR PORT
# The configuration, pid file, error log and temp folders live in bench/out/nginx-PORT/;
# nothing under the system's nginx folders is read or written. sendfile is on,
# keep-alive connections carry up to 100,000 requests, and there is no access log.
# NGINX_WORKERS sets worker_processes (default 1). NGINX_TLS_PORT adds the same folder over HTTPS
# with HTTP/2 (ALPN h2; TLS 1.2 and 1.3; a self-signed ECDSA P-256 certificate for 127.0.0.1 made
# with openssl in the run folder; a shared TLS session cache). NGINX_STATUS_PORT adds nginx's
# stub_status page on http://127.0.0.1:NGINX_STATUS_PORT/ (its "accepts" count is how many
# connections the server took, which the fetch benchmark reads around each row). `stop` sends TERM,
# waits up to 10 s, then KILL, and removes the run folder; stopping a server that is not running
# succeeds.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR PORT" >&2; exit 2; }
(($# == 3)) || usage
action=$1 port=$3
[[ $port =~ ^[0-9]+$ ]] || usage
bench=$(cd "$(dirname "$0")" && pwd)
run=$bench/out/nginx-$port
pidfile=$run/nginx.pid

running_pid() {
    local pid
    [[ -s $pidfile ]] || return 1
    pid=$(<"$pidfile")
    kill -0 "$pid" 2>/dev/null || return 1
    echo "$pid"
}

start() {
    local root
    root=$(cd "$1" && pwd)
    if running_pid >/dev/null; then
        echo "nginx.sh: a server from $run is already running" >&2
        exit 1
    fi
    if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"; then
        echo "nginx.sh: port $port is already taken" >&2
        exit 1
    fi
    mkdir -p "$run/temp"
    local tls_server="" status_server=""
    if [[ -n ${NGINX_TLS_PORT:-} ]]; then
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
            -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
            -keyout "$run/key.pem" -out "$run/cert.pem" 2>/dev/null
        tls_server="server {
        listen 127.0.0.1:$NGINX_TLS_PORT ssl http2;
        ssl_certificate $run/cert.pem;
        ssl_certificate_key $run/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:TLS:10m;
        root $root;
        location / { }
    }"
    fi
    if [[ -n ${NGINX_STATUS_PORT:-} ]]; then
        status_server="server {
        listen 127.0.0.1:$NGINX_STATUS_PORT;
        location / { stub_status; }
    }"
    fi
    local user_line=""
    if [[ $(id -u) -eq 0 ]]; then
        # As root the workers would switch to an unprivileged user that may not read DIR.
        user_line="user root;"
    fi
    cat >"$run/nginx.conf" <<CONF
$user_line
worker_processes ${NGINX_WORKERS:-1};
pid $pidfile;
error_log $run/error.log warn;
events { worker_connections 1024; }
http {
    types { image/jpeg jpg jpeg; image/png png; text/plain txt; }
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65s;
    keepalive_requests 100000;
    client_body_temp_path $run/temp/body;
    proxy_temp_path $run/temp/proxy;
    fastcgi_temp_path $run/temp/fastcgi;
    uwsgi_temp_path $run/temp/uwsgi;
    scgi_temp_path $run/temp/scgi;
    server {
        listen 127.0.0.1:$port;
        root $root;
        location / { }
    }
    $tls_server
    $status_server
}
CONF
    nginx -p "$run" -e "$run/error.log" -c "$run/nginx.conf"
    for _ in $(seq 50); do
        if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"; then
            echo "nginx.sh: serving $root on http://127.0.0.1:$port/ (pid $(<"$pidfile"))" >&2
            return 0
        fi
        sleep 0.1
    done
    echo "nginx.sh: nginx did not answer on port $port; see $run/error.log" >&2
    stop
    exit 1
}

stop() {
    local pid
    if pid=$(running_pid); then
        kill -TERM "$pid"
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            echo "nginx.sh: nginx $pid ignored TERM, killing it" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -rf "$run"
}

case $action in
    start) start "$2" ;;
    stop) stop ;;
    *) usage ;;
esac
