#!/usr/bin/env bash
# Installs the Debian packages CellMotion builds against, if missing:
#   libblas-dev  cblas.h and libblas.so (the CBLAS system-library target)
#   libglm-dev   GLM headers (the C++ peer baseline in the benchmark)
# Idempotent and quiet when everything is present. Needs root (or sudo) to install.
set -euo pipefail
need=()
for pkg in libblas-dev libglm-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${need[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
