#!/bin/sh
# Adds optional backends' npm packages to a production install (after `npm prune --omit=dev`, or
# `npm ci --omit=dev`): each argument is one of package.json's optional peerDependencies, installed at
# the range given there as a production dependency, the development dependencies staying out. The same
# command toolgate prints when a chosen backend's package is missing. The Dockerfile runs it with
# BACKEND_PACKAGES; docs/operations.md ("Optional backends") lists which backend needs which package.
#   sh docker/install-backends.sh pg @kubernetes/client-node
set -eu
[ "$#" -gt 0 ] || exit 0
specs=$(node -e '
const { peerDependencies: peers = {} } = require("./package.json");
const specs = process.argv.slice(1).map((name) => {
  if (!peers[name]) {
    console.error(`${name} is not an optional package of toolgate (${Object.keys(peers).join(", ")})`);
    process.exit(2);
  }
  return `${name}@${peers[name]}`;
});
console.log(specs.join(" "));
' "$@")
# shellcheck disable=SC2086 -- one word per package spec
exec npm install --omit=dev --save-prod --no-audit --no-fund $specs
