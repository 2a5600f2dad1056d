#!/usr/bin/env bash
# Runs a part of the test suite on other Node.js versions, each from the npm registry's `node`
# package and its platform package (fetched once into node_modules/.cache; no version manager):
#   scripts/test-node-versions.sh                    # Node 22 and 24, the unit tests (*.unit.test.ts)
#   scripts/test-node-versions.sh 24 -- test/api     # Node 24, what vitest's filters match
# Each version runs in a copy of this checkout (files as they are now, node_modules hard-linked)
# in a temporary folder, with better-sqlite3 rebuilt against that Node's headers, which the
# package carries: its native module fits one Node ABI only (kept in node_modules/.cache for the
# next run). This checkout is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

versions=()
filters=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; filters=("$@"); break; fi
  versions+=("$1"); shift
done
[ ${#versions[@]} -gt 0 ] || versions=(22 24)
[ ${#filters[@]} -gt 0 ] || filters=(unit.test)

work=""
trap '[ -z "$work" ] || rm -rf "$work"' EXIT
failed=()
for v in "${versions[@]}"; do
  # The exact version, then that release's platform package (bin/node and include/node, the
  # headers), kept in node_modules/.cache. npx's own copy may lack the headers.
  version=$(npx -y "node@$v" --version)
  pkg="$(node -p '(process.platform === "darwin" && process.arch === "arm64" ? "node-bin-" : "node-") + process.platform + "-" + process.arch')@${version#v}"
  nodedir="$PWD/node_modules/.cache/node-versions/$version/node_modules/${pkg%@*}"
  [ -x "$nodedir/bin/node" ] || npm install --prefix "$PWD/node_modules/.cache/node-versions/$version" --no-save --no-audit --no-fund "$pkg" >/dev/null
  node_bin="$nodedir/bin/node"
  echo "== Node $("$node_bin" --version): vitest run ${filters[*]}"
  work=$(mktemp -d "${TMPDIR:-/tmp}/commerce-node$v-XXXXXX")
  git ls-files -z -co --exclude-standard | tar -cf - --null -T - | tar -xf - -C "$work"
  cp -al node_modules "$work/"
  # Its own copy of what is rebuilt or written (a hard link would carry the change back here).
  rm -rf "$work/node_modules/better-sqlite3" "$work/node_modules/.vite" "$work/node_modules/.cache"
  cp -a node_modules/better-sqlite3 "$work/node_modules/"
  # Rebuilt once per Node and better-sqlite3 version, then taken from the cache.
  sqlite_version=$(node -p 'require("./node_modules/better-sqlite3/package.json").version')
  cached="$PWD/node_modules/.cache/node-versions/$version/better_sqlite3-$sqlite_version.node"
  if [ -f "$cached" ]; then
    cp "$cached" "$work/node_modules/better-sqlite3/build/Release/better_sqlite3.node"
  else
    started=$SECONDS
    (cd "$work" && PATH="$(dirname "$node_bin"):$PATH" npm rebuild better-sqlite3 --nodedir="$nodedir" --no-audit --no-fund >/dev/null)
    cp "$work/node_modules/better-sqlite3/build/Release/better_sqlite3.node" "$cached"
    echo "better-sqlite3 rebuilt for Node $v in $((SECONDS - started)) s"
  fi
  started=$SECONDS
  if (cd "$work" && PATH="$(dirname "$node_bin"):$PATH" "$node_bin" node_modules/vitest/vitest.mjs run "${filters[@]}"); then
    echo "== Node $v: passed in $((SECONDS - started)) s"
  else
    echo "== Node $v: FAILED"
    failed+=("$v")
  fi
  rm -rf "$work"
  work=""
done
[ ${#failed[@]} -eq 0 ] || { echo "failed on Node ${failed[*]}"; exit 1; }
