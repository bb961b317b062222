#!/bin/sh
# One image, several processes: `web`, `worker`, `beat`, `migrate`, `healthcheck`, or any
# other command (e.g. `python manage.py verify_tables`).
set -eu

# Metrics (config/metrics.py): each process of the container writes its figures to files in
# this directory, and whichever answers a scrape sums them. It must be set before Python
# starts and emptied before the first process does (a container restart starts counting
# afresh); containers never share it.
metrics_dir() {
  export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-/tmp/prometheus}"
  rm -rf "$PROMETHEUS_MULTIPROC_DIR"
  mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
}

metrics_enabled() {
  case "$(echo "${METRICS_ENABLED:-}" | tr '[:upper:]' '[:lower:]')" in
    1|true|yes|on) return 0 ;;
    *) return 1 ;;
  esac
}

case "${1:-web}" in
  web)
    # ASGI: long-polls wait on coroutines, not threads; one process per core
    # (docs/performance.md). Each waiting client holds a file descriptor (its socket): raise
    # the soft limit to the hard one (the compose file sets both).
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
    metrics_dir
    if metrics_enabled && [ -n "${ALLOWED_HOSTS:-}" ]; then
      # Prometheus may scrape each web container by its address (several with --scale
      # web=N, docs/operations.md): Django must accept that address as a host name.
      ALLOWED_HOSTS="$ALLOWED_HOSTS,$(python -c 'import socket; print(socket.gethostbyname(socket.gethostname()))')"
      export ALLOWED_HOSTS
    fi
    # No --proxy-headers: uvicorn would take the client's address from X-Forwarded-For, which a
    # client can forge; the service reads that header itself, as far as TRUSTED_PROXIES says to
    # trust it, and the scheme from X-Forwarded-Proto (SECURE_PROXY_SSL_HEADER).
    exec uvicorn config.asgi:application --host 0.0.0.0 --port "${PORT:-8000}" \
      --workers "${WEB_CONCURRENCY:-2}" --no-proxy-headers --no-access-log
    ;;
  worker)
    # JSON log lines only (config/task_logs.py): --quiet leaves out the start-up banner.
    metrics_dir
    export METRICS_PORT="${METRICS_PORT:-9808}"
    exec celery -A config --quiet worker --loglevel "${LOG_LEVEL:-INFO}" --concurrency "${CELERY_CONCURRENCY:-4}"
    ;;
  beat)
    # Exactly one beat per deployment: it schedules the deadline and bot sweep.
    metrics_dir
    export METRICS_PORT="${METRICS_PORT:-9808}"
    exec celery -A config --quiet beat --loglevel "${LOG_LEVEL:-INFO}" --schedule /app/var/celerybeat-schedule
    ;;
  migrate)
    exec python manage.py migrate --noinput
    ;;
  healthcheck)
    # /healthz of this container's web server, named as the first of ALLOWED_HOSTS: Django
    # answers 400 to a host it does not allow, and an operator's list names the public host,
    # not necessarily 127.0.0.1 (".example.com" allows example.com; "*" and unset: localhost).
    exec python -c '
import os, sys, urllib.request
hosts = [h.strip().lstrip(".") for h in os.environ.get("ALLOWED_HOSTS", "").split(",") if h.strip()]
host = hosts[0] if hosts and hosts[0] != "*" else "localhost"
request = urllib.request.Request("http://127.0.0.1:%s/healthz" % os.environ.get("PORT", "8000"), headers={"Host": host})
sys.exit(0 if urllib.request.urlopen(request, timeout=2).status == 200 else 1)
'
    ;;
  *)
    exec "$@"
    ;;
esac
