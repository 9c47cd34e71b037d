#!/usr/bin/env bash
# Installs what the end-to-end tests need, idempotently: Debian's chromium, ripgrep and
# libkrb5-dev (code-server's kerberos module builds against it), and code-server 4.100.3
# (VS Code 1.100.3, the last release that runs on Node 20) from the npm registry into a
# cache directory shared by every checkout. Prints the code-server executable's path.
set -euo pipefail

VERSION=4.100.3
CACHE=${KARYI_E2E_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/karyi-vscode-e2e}
PREFIX=$CACHE/code-server-$VERSION
BIN=$PREFIX/node_modules/.bin/code-server

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]} (apt)" >&2
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >&2
fi

if [ ! -x "$BIN" ] || [ ! -e "$PREFIX/.complete" ]; then
  echo "setup: installing code-server $VERSION into $PREFIX (npm, about a minute)" >&2
  rm -rf "$PREFIX" && mkdir -p "$PREFIX"
  tmp=$(mktemp -d)
  # @vscode/ripgrep downloads rg from GitHub in its postinstall: give it Debian's.
  mkdir -p "$tmp/vscode-ripgrep-cache-1.15.11"
  tar czf "$tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$(dirname "$(command -v rg)")" rg
  (cd "$PREFIX" && echo '{"private": true}' > package.json &&
    TMPDIR=$tmp npm_config_unsafe_perm=true npm_config_yes=true npm_config_nodedir=/usr \
      npm install --no-audit --no-fund --loglevel=error "code-server@$VERSION" >&2)
  rm -rf "$tmp"
  touch "$PREFIX/.complete"
fi
echo "$BIN"
