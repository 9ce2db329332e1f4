#!/usr/bin/env bash
# Builds a local stand-in for `docker.io/library/node:24-bookworm-slim` (no registry is reachable
# here): mmdebstrap's minbase Debian bookworm, imported into podman, plus the Node.js 24 binary
# of the workspace's `node` package and npm 11 from the npm registry (scripts/container/
# base.Containerfile), tagged with the official name so that the real Containerfile builds
# against it with `--pull=never`. Does nothing when that image exists (FORCE=1 rebuilds it).
# Needs root, podman and mmdebstrap (apt-get install podman mmdebstrap runc).
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE=docker.io/library/node:24-bookworm-slim
if [ -z "${FORCE:-}" ] && podman image exists "$BASE"; then
  echo "base: $BASE is there"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! podman image exists localhost/bookworm-minbase || [ -n "${FORCE:-}" ]; then
  echo "base: mmdebstrap --variant=minbase bookworm"
  mmdebstrap --variant=minbase --quiet bookworm "$work/rootfs.tar" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
  podman import "$work/rootfs.tar" localhost/bookworm-minbase
  rm -f "$work/rootfs.tar"
fi
node_bin=$(readlink -f node_modules/node/bin/node)
cp "$node_bin" "$work/node"
version=$("$work/node" -p process.versions.node)
npm pack --silent --pack-destination "$work" npm@11 >/dev/null
mkdir "$work/npm"
tar -xzf "$work"/npm-*.tgz -C "$work/npm" --strip-components=1
podman build --pull=never --build-arg NODE_VERSION="$version" -t "$BASE" -f scripts/container/base.Containerfile "$work"
echo "base: $BASE (Debian bookworm minbase, Node.js $version)"
