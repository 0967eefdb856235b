#!/usr/bin/env bash
# Build the sandbox image with no container registry (issue 12 "Image"): debootstrap a minimal
# Debian bookworm with Python 3, numpy, pandas and matplotlib from Debian's packages, add the
# runner and an unprivileged user, and `docker import` the tree. The same image the Dockerfile
# builds on a connected machine; `docker save svc-sandbox:latest | gzip > sandbox.tar.gz` and
# `docker load` move it to an air-gapped laptop.
#
# Usage: native/sandbox/build-offline.sh [tag]      (default tag: svc-sandbox:latest)
# Env:   SANDBOX_DEBIAN_MIRROR (default http://deb.debian.org/debian), SANDBOX_BUILD_DIR (scratch).
# Needs: root (debootstrap, chroot), debootstrap, a running Docker engine.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tag="${1:-svc-sandbox:latest}"
mirror="${SANDBOX_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
scratch="${SANDBOX_BUILD_DIR:-$(mktemp -d /tmp/svc-sandbox-build.XXXXXX)}"
root="$scratch/rootfs"
packages="python3,python3-numpy,python3-pandas,python3-matplotlib,fonts-dejavu-core"

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
command -v debootstrap >/dev/null || { echo "build-offline: debootstrap is missing (apt-get install debootstrap)" >&2; exit 2; }
docker info >/dev/null 2>&1 || { echo "build-offline: no Docker engine answers (start dockerd)" >&2; exit 2; }

cleanup() { $SUDO rm -rf "$scratch"; }
trap cleanup EXIT

echo "build-offline: debootstrap bookworm ($mirror) into $root"
$SUDO debootstrap --variant=minbase --include="$packages" bookworm "$root" "$mirror" >"$scratch/debootstrap.log" 2>&1 \
  || { tail -20 "$scratch/debootstrap.log" >&2; exit 1; }

echo "build-offline: runner, user, font cache"
$SUDO install -d -m 0755 "$root/opt/svc"
$SUDO install -m 0755 "$here/runner.py" "$root/opt/svc/runner.py"
$SUDO chroot "$root" /usr/sbin/groupadd --gid 1000 sandbox
$SUDO chroot "$root" /usr/sbin/useradd --uid 1000 --gid 1000 --home-dir /workspace --no-create-home --shell /bin/bash sandbox
$SUDO install -d -m 0755 -o 1000 -g 1000 "$root/workspace" "$root/workspace/output"
# Matplotlib's font cache is built once here, so no session pays for it (the root is read-only at run).
$SUDO install -d -m 0755 "$root/opt/svc/mpl"
$SUDO chroot "$root" /usr/bin/env MPLCONFIGDIR=/opt/svc/mpl MPLBACKEND=Agg /usr/bin/python3 -c "import matplotlib.pyplot as plt; plt.figure()" >/dev/null
$SUDO chmod -R a+rX "$root/opt/svc/mpl"
# Smaller image: no package caches, docs or locales beyond C.
$SUDO rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* \
  "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*

echo "build-offline: docker import $tag"
$SUDO tar -C "$root" --numeric-owner -c . | docker import \
  --change 'USER 1000:1000' \
  --change 'WORKDIR /workspace' \
  --change 'ENV MPLBACKEND=Agg MPLCONFIGDIR=/tmp/matplotlib SVC_MPL_SEED=/opt/svc/mpl PYTHONDONTWRITEBYTECODE=1 HOME=/workspace LANG=C.UTF-8' \
  --change 'LABEL org.svc.sandbox.image=1' \
  --change 'CMD ["/usr/bin/python3", "-u", "/opt/svc/runner.py"]' \
  - "$tag" >/dev/null
docker image inspect "$tag" --format 'build-offline: built {{.Id}} ({{.Size}} bytes)'
