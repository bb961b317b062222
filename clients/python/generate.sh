#!/usr/bin/env bash
# clients/python/cardgames_client from the API's OpenAPI schema, with openapi-python-client:
#   clients/python/generate.sh [URL or file of the schema] [output folder]
# (default: a local `make run`'s schema, into clients/python/cardgames_client). Any warning
# fails the run: openapi-python-client warns about every part of the schema it cannot type,
# and leaves that part out of the client.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source=${1:-http://127.0.0.1:8000/api/schema/?format=json}
output=${2:-$here/cardgames_client}
# The project's virtualenv (make install) has the generator and ruff, which formats its output.
bin=${VENV_BIN:-$here/../../.venv/bin}
export PATH="$bin:$PATH"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ $source == http://* || $source == https://* ]]; then
  curl -sSf "$source" -o "$work/schema.json"
else
  cp "$source" "$work/schema.json"
fi
log="$work/generate.log"
status=0
openapi-python-client generate --path "$work/schema.json" --meta none --output-path "$output" \
  --config "$here/config.yaml" --overwrite --fail-on-warning > "$log" 2>&1 || status=$?
cat "$log"
if [[ $status -ne 0 ]] || grep -qi warning "$log"; then
  echo "generate.sh: openapi-python-client failed or warned (above)" >&2
  exit 1
fi
