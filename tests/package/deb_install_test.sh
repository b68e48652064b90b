#!/bin/sh
# deb_install_test.sh CPACK BUILD_DIR SOURCE_DIR VERSION
# Builds the .deb from BUILD_DIR (cpack -G DEB, into a temporary folder),
# installs it the way a user does (`apt-get install ./fabscope_*.deb`, apt
# resolving the dependencies), checks what a user gets from the installed
# files (the binary, the man page, bash completion, the schemas), and removes
# the package again, also when a check fails.
# Needs root: as root it runs directly, else through `sudo -n`, else it fails.
# It never skips: CI must not pass on a package nobody installed.
set -eu
cpack=$1 build=$2 src=$3 version=$4

fail() {
    echo "deb_install_test: FAIL: $*" >&2
    exit 1
}

sudo=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        sudo="sudo -n"
    else
        fail "installing a package needs root: run as root or with password-less sudo"
    fi
fi

tmp=$(mktemp -d /tmp/fabscope-deb-test.XXXXXX)
chmod 755 "$tmp" # apt's _apt user reads the .deb from here
installed_by_us=""
cleanup() {
    if [ -n "$installed_by_us" ]; then
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq fabscope >/dev/null ||
            echo "deb_install_test: could not remove the fabscope package it installed" >&2
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The package, from this build tree.
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp" >"$tmp/cpack.log" 2>&1 ||
    { cat "$tmp/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb="$tmp/fabscope_${version}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || fail "cpack made no $deb: $(ls "$tmp")"
dpkg-deb -I "$deb"

# Depends: runtime packages from dpkg-shlibdeps, never a -dev package;
# librdmacm1 only if the binary is linked against librdmacm.
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libibumad3 libibverbs1; do
    echo "$depends" | grep -q "\b$lib\b" || fail "Depends lacks $lib: $depends"
done
echo "$depends" | grep -q -- '-dev\b' && fail "Depends names a -dev package: $depends"
dpkg-deb -x "$deb" "$tmp/root"
if echo "$depends" | grep -q librdmacm1; then
    readelf -d "$tmp/root/usr/bin/fabscope" | grep -q 'librdmacm' ||
        fail "Depends names librdmacm1 but fabscope does not link librdmacm"
fi

# Touch only what this test creates: no fabscope package, and none of the
# package's files, may be there before it.
status=$(dpkg-query -W -f='${db:Status-Status}' fabscope 2>/dev/null || true)
[ -z "$status" ] || [ "$status" = not-installed ] ||
    fail "a fabscope package is already installed (status $status), not by this test; remove it first"
for f in $(cd "$tmp/root" && find . -type f | sed 's|^\.||'); do
    [ ! -e "$f" ] || fail "$f exists already (not from this test); remove it first"
done

installed_by_us=1
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" \
    >"$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get install $deb failed"; }

# The binary.
got=$(/usr/bin/fabscope --version)
[ "$got" = "fabscope $version" ] || fail "/usr/bin/fabscope --version says '$got', not 'fabscope $version'"

# The man page. Minimal Debian images (docker's debian:*-slim) tell dpkg not
# to unpack /usr/share/man (path-exclude in /etc/dpkg/dpkg.cfg.d/); there the
# page cannot be installed by any package, so the one in the .deb is rendered.
page=/usr/share/man/man1/fabscope.1.gz
if grep -qs '^path-exclude.*/usr/share/man' /etc/dpkg/dpkg.cfg.d/*; then
    echo "deb_install_test: this machine's dpkg excludes /usr/share/man; rendering the .deb's page"
    [ -f "$tmp/root$page" ] || fail "the .deb has no $page"
    text=$(MANWIDTH=80 man -l "$tmp/root$page" 2>&1) || fail "man -l on the .deb's page failed: $text"
else
    [ "$(man -w fabscope)" = "$page" ] || fail "man -w fabscope finds '$(man -w fabscope 2>&1)', not $page"
    text=$(MANWIDTH=80 man fabscope 2>&1) || fail "man fabscope failed: $text"
fi
echo "$text" | grep -Eq "fabscope +- +find +what +is +wrong" || fail "the man page renders without its NAME line: $text"

# Bash completion: bash-completion finds it where it looks, and it completes.
comp=/usr/share/bash-completion/completions/fabscope
[ -f "$comp" ] || fail "no $comp"
loaded=$(env PATH=/usr/bin:/bin bash -c '. /usr/share/bash-completion/bash_completion
    __load_completion fabscope && complete -p fabscope' 2>&1) || true
[ "$loaded" = "complete -F _fabscope fabscope" ] || fail "bash-completion does not load it: $loaded"
got=$(env PATH=/usr/bin:/bin bash -c ". $comp; COMP_WORDS=(fabscope di); COMP_CWORD=1; _fabscope
    echo \"\${COMPREPLY[*]}\"")
[ "$got" = "discover diff" ] || fail "completing 'fabscope di' gives '$got', not 'discover diff'"

# The schemas, as in the source tree.
n=0
for s in "$src"/docs/*.schema.json; do
    cmp -s "$s" "/usr/share/fabscope/schemas/$(basename "$s")" ||
        fail "/usr/share/fabscope/schemas/$(basename "$s") is missing or differs from $s"
    n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no schemas in $src/docs"

# Removal leaves nothing behind.
$sudo env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq fabscope >"$tmp/apt.log" 2>&1 ||
    { cat "$tmp/apt.log" >&2; fail "apt-get purge fabscope failed"; }
installed_by_us=""
for f in $(cd "$tmp/root" && find . -type f | sed 's|^\.||'); do
    [ ! -e "$f" ] || fail "$f is still there after apt-get purge fabscope"
done
echo "deb_install_test: ok: installed, --version, man, completion, $n schemas, removed"
