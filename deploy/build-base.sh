#!/usr/bin/env bash
# Build the scale-out base image with no container registry (issue 21 item 2): debootstrap a minimal
# Debian bookworm from the Debian mirror (as native/sandbox/build-offline.sh does) with PostgreSQL 15,
# Redis, HAProxy and the C++ runtime, copy this machine's Node.js binary in, and `docker import` it.
# Then `docker build -f deploy/Dockerfile -t svc-app:latest .` adds the built stack (dist/,
# node_modules/, migrations/, assets/) and `docker-compose -f deploy/compose.yml up` runs it.
#
# Usage: deploy/build-base.sh [tag]            (default svc-base:latest)
# Env:   SVC_DEBIAN_MIRROR (default http://deb.debian.org/debian), SVC_BUILD_DIR (scratch), NODE_BIN.
# Needs: root, debootstrap, a running Docker engine, node (>= 20.18) on PATH.
set -euo pipefail
tag="${1:-svc-base:latest}"
mirror="${SVC_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
scratch="${SVC_BUILD_DIR:-$(mktemp -d /tmp/svc-base-build.XXXXXX)}"
root="$scratch/rootfs"
node_bin="${NODE_BIN:-$(command -v node)}"
packages="ca-certificates,libstdc++6,postgresql-15,redis-server,haproxy,curl,tini"

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
command -v debootstrap >/dev/null || { echo "build-base: debootstrap is missing (apt-get install debootstrap)" >&2; exit 2; }
docker info >/dev/null 2>&1 || { echo "build-base: no Docker engine answers (start dockerd)" >&2; exit 2; }
[ -x "$node_bin" ] || { echo "build-base: no node binary (set NODE_BIN)" >&2; exit 2; }

cleanup() { $SUDO rm -rf "$scratch"; }
trap cleanup EXIT

echo "build-base: debootstrap bookworm ($mirror) into $root"
$SUDO debootstrap --variant=minbase --include="$packages" bookworm "$root" "$mirror" >"$scratch/debootstrap.log" 2>&1 \
  || { tail -20 "$scratch/debootstrap.log" >&2; exit 1; }

# pgvector has no Debian 12 package: copy this machine's build for PostgreSQL 15 (.ci/run builds it
# from ../shared/vendor/pgvector-*.tar.gz) so knowledge and memory can create the `vector` extension.
pg_lib="${PGVECTOR_LIB:-/usr/lib/postgresql/15/lib}"
pg_ext="${PGVECTOR_EXT:-/usr/share/postgresql/15/extension}"
if [ -f "$pg_lib/vector.so" ] && [ -f "$pg_ext/vector.control" ]; then
  echo "build-base: pgvector from $pg_lib"
  $SUDO install -m 0755 "$pg_lib/vector.so" "$root/usr/lib/postgresql/15/lib/vector.so"
  $SUDO cp "$pg_ext"/vector.control "$pg_ext"/vector--*.sql "$root/usr/share/postgresql/15/extension/"
else
  echo "build-base: WARNING no pgvector build on this machine ($pg_lib/vector.so): knowledge and memory cannot run on PostgreSQL in this image" >&2
fi

echo "build-base: node $("$node_bin" -v) from $node_bin"
$SUDO install -m 0755 "$node_bin" "$root/usr/local/bin/node"
$SUDO chroot "$root" /usr/local/bin/node -e 'process.exit(0)'
$SUDO chroot "$root" /usr/sbin/groupadd --gid 1000 svc
$SUDO chroot "$root" /usr/sbin/useradd --uid 1000 --gid 1000 --home-dir /data --no-create-home --shell /usr/sbin/nologin svc
$SUDO rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* \
  "$root"/usr/share/man/* "$root"/usr/share/info/*

echo "build-base: docker import $tag"
$SUDO tar -C "$root" --numeric-owner -c . | docker import \
  --change 'ENV LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' \
  --change 'LABEL org.svc.base.image=1' \
  - "$tag" >/dev/null
docker image inspect "$tag" --format 'build-base: built {{.Id}} ({{.Size}} bytes)'
