#!/usr/bin/env bash
# Installs the Debian packages that `make demo` (demo) or `make test` (test, the default) needs,
# only those that are missing: one `apt-get update`, then one `apt-get install -y`.
# Not root: prints the exact command to run and exits 1. Used by make and by .ci/run.
set -euo pipefail

what=${1:-test}
case "$what" in
  demo | test) ;;
  *) echo "usage: $0 [demo|test]" >&2; exit 64 ;;
esac

# INSTALL_DEPS_ROOT prefixes the files checked (scripts/install_deps_test.go points it at a fake tree).
root=${INSTALL_DEPS_ROOT:-}
need=()
# ZooKeeper 3.8 (zktest runs its jar; the package brings a Java runtime).
[ -e "$root/usr/share/java/zookeeper.jar" ] || need+=(zookeeper)
if [ "$what" = test ]; then
  # Curator 5.4 jars: the interop tests contend with a Java InterProcessMutex on the same lock path.
  [ -e "$root/usr/share/java/curator-recipes.jar" ] || need+=(libcurator-recipes-java)
  # javac compiles the Curator contender (and brings java).
  command -v javac >/dev/null 2>&1 || need+=(default-jdk-headless)
  # kazoo for Debian's python3: the benchmark's kazoo peer is tested too (it skips only when missing).
  "$root/usr/bin/python3" -c 'import kazoo' >/dev/null 2>&1 || need+=(python3-kazoo)
elif ! command -v java >/dev/null 2>&1 && [ -e "$root/usr/share/java/zookeeper.jar" ]; then
  need+=(default-jre-headless)
fi

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
cmd="apt-get update && apt-get install -y ${need[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing ${need[*]}; run as root:" >&2
  echo "  $cmd" >&2
  exit 1
fi
echo "install-deps: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${need[@]}" >/dev/null
