#!/usr/bin/env bash
# Makes sure Keycloak (the Quarkus distribution) is unpacked and pre-built in ~/.cache/agw-keycloak,
# keyed by version, for the Keycloak interop test (issue 29). The zip comes from Maven Central through
# `mvn dependency:copy` (no download site); it is ~176 MB, so a cold run takes a minute or two and a
# warm check a moment. `kc.sh build` is run once here with the options the test starts it with, so
# each test start skips Quarkus's augmentation step (`start --optimized`).
set -euo pipefail
version=26.7.3
dir=${AGW_KEYCLOAK_DIR:-$HOME/.cache/agw-keycloak}
home=$dir/keycloak-$version
stamp=$home/.agw-built
# The build-time options the test's `start --optimized` relies on (the dev-file H2 database); a
# change here re-runs the build.
build_options=(--db=dev-file)
wanted="$version ${build_options[*]}"
if [[ -f $stamp && $(cat "$stamp") == "$wanted" ]]; then exit 0; fi
# Java 17+ and Maven come with the machine; where they do not, the Debian packages are installed.
install_debian() {
  echo "ensure-keycloak: installing $* (Debian packages) for Keycloak…" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -q >&2 && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2
}
command -v java >/dev/null || install_debian openjdk-17-jre-headless || true
java_major=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1 || true)
if [[ -z $java_major || $java_major -lt 17 ]]; then
  echo "ensure-keycloak: Keycloak $version needs Java 17 or newer; found '${java_major:-no java}'" >&2
  exit 1
fi
mkdir -p "$dir"
if [[ ! -x $home/bin/kc.sh ]]; then
  command -v mvn >/dev/null || install_debian maven || true
  command -v mvn >/dev/null || {
    echo "ensure-keycloak: mvn is required to fetch Keycloak from Maven Central (apt-get install maven)" >&2
    exit 1
  }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  echo "ensure-keycloak: fetching org.keycloak:keycloak-quarkus-dist:$version:zip (~176 MB) from Maven Central…" >&2
  # A private local repository, so the zip is not kept twice (there and in ~/.m2).
  mvn -B -q -Dmaven.repo.local="$work/m2" dependency:copy \
    "-Dartifact=org.keycloak:keycloak-quarkus-dist:$version:zip" "-DoutputDirectory=$work" >&2
  echo "ensure-keycloak: unpacking…" >&2
  rm -rf "$home" "$dir/unpack"
  mkdir -p "$dir/unpack"
  if command -v unzip >/dev/null; then
    unzip -q "$work/keycloak-quarkus-dist-$version.zip" -d "$dir/unpack"
  else
    (cd "$dir/unpack" && jar xf "$work/keycloak-quarkus-dist-$version.zip")
  fi
  mv "$dir/unpack/keycloak-$version" "$home"
  rm -rf "$dir/unpack"
  chmod +x "$home"/bin/*.sh
fi
echo "ensure-keycloak: pre-building Keycloak $version (${build_options[*]}); about a minute…" >&2
"$home/bin/kc.sh" build "${build_options[@]}" >&2
rm -rf "$home/data" # the build leaves nothing a start needs there; each test start has its own
echo "$wanted" >"$stamp"
echo "ensure-keycloak: Keycloak $version ready at $home" >&2
