#!/usr/bin/env bash
# CI's `container`: builds the server's image from the repository's Containerfile with podman,
# starts it and waits for `GET /ready`, then checks that it runs as a non-root user and that its
# health check passes. The base image is the local stand-in of scripts/container/base.sh (no
# registry here), so the build runs with `--pull=never`. The build context is a temporary
# directory holding the Containerfile and fresh `pack:all` tarballs (`--no-build`: run after the
# build). npm inside the build reaches the registry through the host's network and CA bundle.
# Runs containers with Debian's runc (crun fails on this host's cgroups) and explicit limits.
set -euo pipefail
cd "$(dirname "$0")/../.."
IMAGE=localhost/marketplace-server:ci
RUNTIME=(--runtime "$(command -v runc || echo /usr/sbin/runc)")
LIMITS=(--ulimit nofile=4096:4096 --ulimit nproc=4096:4096)

scripts/container/base.sh

ctx=$(mktemp -d)
name="marketplace-ci-$$"
cleanup() {
  podman "${RUNTIME[@]}" rm -f "$name" >/dev/null 2>&1 || true
  rm -rf "$ctx"
}
trap cleanup EXIT
node scripts/pack-all.mjs --no-build --out "$ctx/.packs" >/dev/null
cp Containerfile "$ctx/"
# The host's registry and CA bundle, for npm inside the build (a global npmrc mounted for the
# build only: nothing of it stays in the image).
printf 'registry=%s\n' "$(npm config get registry)" >"$ctx/npmrc"
mounts=(--volume "$ctx/npmrc:/usr/local/etc/npmrc:ro")
cafile=$(npm config get cafile 2>/dev/null || true)
# A host that trusts its network's CA through Node alone (npm's cafile unset): npm inside the
# build trusts the same file, else its fetches fail certificate checks and retry for minutes.
if { [ -z "$cafile" ] || [ "$cafile" = null ]; } && [ -f "${NODE_EXTRA_CA_CERTS:-}" ]; then
  cafile=$NODE_EXTRA_CA_CERTS
fi
if [ -n "$cafile" ] && [ "$cafile" != null ] && [ -f "$cafile" ]; then
  printf 'cafile=%s\n' "$cafile" >>"$ctx/npmrc"
  mounts+=(--volume "$(dirname "$cafile"):$(dirname "$cafile"):ro")
fi
echo "$ podman build --pull=never --format docker -t $IMAGE ."
podman build --pull=never --format docker --network=host "${mounts[@]}" \
  -t "$IMAGE" -f "$ctx/Containerfile" "$ctx"
podman image inspect "$IMAGE" --format 'image: {{.Size}} bytes, user {{.Config.User}}, health check {{.Config.Healthcheck.Test}}'

port=$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
# Without systemd, podman cannot schedule the health check (it logs "unable to get systemd
# connection"; harmless): it is run once below with `podman healthcheck run`.
podman "${RUNTIME[@]}" run -d --name "$name" --network=host "${LIMITS[@]}" \
  -e PORT="$port" -e HOST=127.0.0.1 "$IMAGE" >/dev/null
ready=""
for _ in $(seq 1 120); do
  if ready=$(curl -fsS "http://127.0.0.1:$port/ready" 2>/dev/null); then break; fi
  [ "$(podman inspect -f '{{.State.Running}}' "$name")" = true ] || break
  sleep 0.5
done
podman logs "$name" 2>&1 | tail -n 5
[ -n "$ready" ] || { echo "the container never answered /ready"; exit 1; }
echo "GET /ready: $ready"
uid=$(podman "${RUNTIME[@]}" exec "$name" id -u)
[ "$uid" != 0 ] || { echo "the server runs as root"; exit 1; }
echo "runs as uid $uid ($(podman "${RUNTIME[@]}" exec "$name" id -un))"
podman "${RUNTIME[@]}" healthcheck run "$name" && echo "health check: healthy"
podman "${RUNTIME[@]}" stop -t 10 "$name" >/dev/null
echo "container ok"
