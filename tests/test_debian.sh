#!/usr/bin/env bash
# The Debian packaging (debian/) against the project it packages (TAP):
# debian/changelog's version is meson's project version, and every package
# setup.sh installs for the build is named in debian/control (a build
# dependency, or a run-time one of the binary packages). Building the
# packages takes minutes: ./setup.sh package does that, not the suite.
#
#   tests/test_debian.sh SOURCE_ROOT PROJECT_VERSION
set -u
src=$1
version=$2
. "$(dirname "$0")/tap.sh"

changelog_version=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$src/debian/changelog")
[ "$changelog_version" = "$version" ]
ok $? "debian/changelog's version ($changelog_version) is meson's project version ($version)"

# setup.sh's build_packages array, one name a line (build-essential is implied).
build_packages=$(sed -n '/^build_packages=(/,/)/p' "$src/setup.sh" | sed 's/^build_packages=(//; s/#.*//; s/)//' |
                 tr ' ' '\n' | grep -v -e '^$' -e '^build-essential$')
relations=$(grep -v '^#' "$src/debian/control")
missing=()
for package in $build_packages; do
    grep -qE "(^|[ ,:])${package//./\\.}([ ,(]|\$)" <<<"$relations" || missing+=("$package")
done
[ -n "$build_packages" ] && [ ${#missing[@]} -eq 0 ]
ok $? "debian/control names every package of setup.sh's build_packages${missing:+ (missing: ${missing[*]})}"

tap_end
