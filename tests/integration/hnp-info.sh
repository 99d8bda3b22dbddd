#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hnp-info as a user sees it: the in-tree routed components with their
# versions and origin, a broken file on the component path, every parameter
# source and their precedence, and the errors and warnings a user gets for
# a bad value, an unknown name or an unknown option.
#
# Exit status: 0 pass, 1 fail, 77 skip (automake's convention).
set -eu

: "${top_builddir:?run me through make check, or set top_builddir}"
INFO="$top_builddir/bin/hnp-info"
STEP_TIMEOUT=60

if [ ! -x "$INFO" ]; then
    echo "SKIP: $INFO is not built"
    exit 77
fi
if ! command -v timeout >/dev/null 2>&1; then
    echo "SKIP: timeout(1) is not installed"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hnp-info-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# The user's own ~/.hnp and HNP_MCA_* variables must not leak into the test.
HOME="$tmp/home"
mkdir -p "$HOME"
export HOME
for var in $(env | sed -n 's/^\(HNP_MCA_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$var"
done

# An uninstalled build keeps its components in the build tree, not in the
# installed component directory; the routed ones are loadable modules only
# when the in-tree components are not built in.
routed_loadable=no
[ "${HNP_DLOPEN:-yes}" = yes ] && [ "${HNP_BUILTIN:-yes}" = no ] && routed_loadable=yes
if [ $routed_loadable = yes ]; then
    component_path=""
    for c in direct radix binomial; do
        component_path="$component_path${component_path:+:}$top_builddir/components/routed/$c/.libs"
    done
else
    component_path="$tmp/empty"
    mkdir -p "$component_path"
fi
HNP_MCA_mca_base_component_path="$component_path"
export HNP_MCA_mca_base_component_path

checks=0
step=""

fail() {
    echo "FAIL [$step]: $*"
    echo "--- stdout of hnp-info"
    cat "$tmp/out"
    echo "--- stderr of hnp-info"
    cat "$tmp/err"
    exit 1
}

# Runs hnp-info; its output lands in $tmp/out and $tmp/err, its exit status
# in $status.
run_info() {
    status=0
    timeout "$STEP_TIMEOUT" "$INFO" "$@" >"$tmp/out" 2>"$tmp/err" ||
        status=$?
    if [ "$status" -eq 124 ]; then
        fail "hnp-info $* did not finish within ${STEP_TIMEOUT}s"
    fi
}

# run_info with one VAR=VALUE added to its environment. (An assignment in
# front of a shell function may outlive the call, depending on the shell.)
run_info_env() {
    assignment=$1
    shift
    status=0
    timeout "$STEP_TIMEOUT" env "$assignment" "$INFO" "$@" >"$tmp/out" \
        2>"$tmp/err" || status=$?
    if [ "$status" -eq 124 ]; then
        fail "hnp-info $* did not finish within ${STEP_TIMEOUT}s"
    fi
}

expect_status() {
    [ "$status" -eq "$1" ] || fail "exit status $status, expected $1"
    checks=$((checks + 1))
}

expect_out() {
    grep -qF -- "$1" "$tmp/out" || fail "output does not mention '$1'"
    checks=$((checks + 1))
}

expect_err() {
    grep -qF -- "$1" "$tmp/err" || fail "stderr does not mention '$1'"
    checks=$((checks + 1))
}

# The value of field $2 of parameter $1 in the last --parsable output.
param_field() {
    sed -n "s/^mca:[^:]*:[^:]*:param:$1:$2://p" "$tmp/out" | head -n 1
}

expect_param() { # name value source
    got_value=$(param_field "$1" value)
    got_source=$(param_field "$1" source)
    [ "$got_value" = "$2" ] ||
        fail "$1 has value '$got_value', expected '$2'"
    [ "$got_source" = "$3" ] ||
        fail "$1 comes from '$got_source', expected '$3'"
    checks=$((checks + 1))
}

# ------------------------------------------------------------ options
step="--version"
run_info --version
expect_status 0
grep -qx 'hnp-info (hnp) [0-9][0-9.]*' "$tmp/out" || fail "bad version line"

step="--help"
run_info --help
expect_status 0
expect_out "--param"
expect_out "--parsable"

step="unknown option"
run_info --frobnicate
expect_status 1
expect_err "--frobnicate"
expect_err "--help"

# ------------------------------------------------------------ components
step="component listing"
run_info --parsable
expect_status 0
for c in direct radix binomial; do
    grep -qx "mca:routed:$c:version:[0-9]*\.[0-9]*\.[0-9]*" "$tmp/out" ||
        fail "no version for routed $c"
    grep -qx "mca:routed:$c:interface:[0-9]*\.[0-9]*\.[0-9]*" "$tmp/out" ||
        fail "no interface version for routed $c"
    path=$(sed -n "s/^mca:routed:$c:path://p" "$tmp/out")
    if [ $routed_loadable = yes ]; then
        case "$path" in
        */mca_routed_$c.so) ;;
        *) fail "routed $c comes from '$path', expected its .so" ;;
        esac
        [ -f "$path" ] || fail "routed $c path '$path' is not a file"
    else
        [ "$path" = built-in ] || fail "routed $c is '$path', not built in"
    fi
    checks=$((checks + 1))
done
if grep -v '^mca:' "$tmp/out" | grep -v '^launch-model:' |
        grep -Ev '^(package|hnp|path|libevent|libsodium):' | grep -qv '^framework:'; then
    fail "a --parsable line starts with none of mca:, framework:, launch-model:, the version lines"
fi
# The version lines, as ompi_info --parsable begins with them.
version=$("$top_builddir/bin/hnp" --version | sed -n 's/^hnp (hnp) //p')
[ -n "$version" ] || fail "hnp --version says no version"
for line in "^package:hnp $version\$" "^hnp:version:full:$version\$" \
        "^hnp:version:component-abi:[0-9][0-9]*\$" "^libevent:version:full:[0-9]" \
        "^libsodium:version:full:[0-9]"; do
    grep -q -- "$line" "$tmp/out" || fail "--parsable has no line '$line'"
    checks=$((checks + 1))
done

step="human listing"
run_info
expect_status 0
expect_out "Framework routed"
expect_out "radix"
if [ $routed_loadable = yes ]; then
    expect_out "/mca_routed_radix.so"
else
    expect_out "built in"
fi

step="broken file on the component path"
mkdir -p "$tmp/junk"
printf 'this is not a shared object\n' >"$tmp/junk/mca_routed_broken.so"
run_info --parsable --mca mca_base_component_path "$component_path:$tmp/junk"
expect_status 0
grep -q "^mca:routed:broken:failed:$tmp/junk/mca_routed_broken.so:." \
    "$tmp/out" || fail "the junk file is not listed as failed with its path"
grep -q '^mca:routed:radix:version:' "$tmp/out" ||
    fail "a broken file hides the working components"
run_info --mca mca_base_component_path "$component_path:$tmp/junk"
expect_status 0
expect_out "$tmp/junk/mca_routed_broken.so"

# ------------------------------------------------------------ parameters
step="--param routed radix"
run_info --param routed radix
expect_status 0
expect_out "routed_radix_degree"
run_info --parsable --param routed radix
expect_status 0
default=$(param_field routed_radix_degree default)
type=$(param_field routed_radix_degree type)
[ -n "$default" ] || fail "routed_radix_degree has no default"
[ -n "$type" ] || fail "routed_radix_degree has no type"
[ -n "$(param_field routed_radix_degree help)" ] ||
    fail "routed_radix_degree has no help text"
expect_param routed_radix_degree "$default" default
if grep -v '^mca:routed:radix:param:' "$tmp/out" | grep -q .; then
    fail "--param routed radix shows parameters of others"
fi

step="--param of the framework and of the architecture"
run_info --parsable --param routed base
expect_status 0
expect_out "mca:routed:base:param:routed:value:"
expect_out "mca:routed:base:param:routed_base_verbose:value:"
run_info --parsable --param mca base
expect_status 0
expect_out "mca:mca:base:param:mca_base_component_path:value:"
expect_out "mca:mca:base:param:mca_base_verbose:value:"

step="--level"
run_info --parsable --level 1 --param all all
expect_status 0
if grep ':level:' "$tmp/out" | grep -qv ':level:1$'; then
    fail "--level 1 shows parameters of higher levels"
fi
run_info --level 0 --param all all
expect_status 1
expect_err "--level"

step="unknown framework or component for --param"
run_info --param nosuch all
expect_status 1
expect_err "nosuch"
expect_err "routed"
run_info --param routed nosuch
expect_status 1
expect_err "nosuch"
expect_err "radix"

# ------------------------------------------------------------ sources
step="command line"
run_info --parsable --mca routed_radix_degree 4 --param routed radix
expect_status 0
expect_param routed_radix_degree 4 "command line"

step="environment"
run_info_env HNP_MCA_routed_radix_degree=8 --parsable --param routed radix
expect_status 0
expect_param routed_radix_degree 8 environment

step="tune file"
printf '# a tune file\nrouted_radix_degree = 5\n' >"$tmp/tune.conf"
run_info --parsable --tune "$tmp/tune.conf" --param routed radix
expect_status 0
expect_param routed_radix_degree 5 "tune file"
expect_out "$tmp/tune.conf"

step="missing tune file"
run_info --tune "$tmp/no-such.conf"
expect_status 1
expect_err "$tmp/no-such.conf"

step="user file"
mkdir -p "$HOME/.hnp"
printf 'routed_radix_degree = 6\n' >"$HOME/.hnp/mca-params.conf"
run_info --parsable --param routed radix
expect_status 0
expect_param routed_radix_degree 6 "user file"

step="precedence"
run_info_env HNP_MCA_routed_radix_degree=8 --parsable --tune "$tmp/tune.conf" \
    --mca routed_radix_degree 4 --param routed radix
expect_status 0
expect_param routed_radix_degree 4 "command line"
run_info_env HNP_MCA_routed_radix_degree=8 --parsable --tune "$tmp/tune.conf" \
    --param routed radix
expect_status 0
expect_param routed_radix_degree 8 environment
run_info --parsable --tune "$tmp/tune.conf" --param routed radix
expect_status 0
expect_param routed_radix_degree 5 "tune file"
rm -f "$HOME/.hnp/mca-params.conf"

# ------------------------------------------------------------ mistakes
step="bad value"
run_info --mca routed_radix_degree abc
[ "$status" -ne 0 ] || fail "a bad value was accepted"
checks=$((checks + 1))
expect_err "routed_radix_degree"
expect_err "abc"
expect_err "$type"

step="unknown name"
run_info --mca routed_radix_degre 4
expect_status 0
expect_err "routed_radix_degre"
grep "routed_radix_degre" "$tmp/err" | grep -qF "routed_radix_degree" ||
    fail "the warning does not suggest routed_radix_degree"

# Open MPI's parameters (which hnp hands to the ranks) are not unknown,
# wherever they are set; a name of neither is.
step="Open MPI's parameters"
mkdir -p "$HOME/.hnp"
echo "btl = ^openib" >"$HOME/.hnp/mca-params.conf"
run_info --mca pml ob1 --mca btl_tcp_if_include lo --mca btlx 1
expect_status 0
checks=$((checks + 1))
if grep -q "'btl'\|'pml'\|btl_tcp_if_include" "$tmp/err"; then
    cat "$tmp/err"; fail "Open MPI's parameters were warned of"
fi
expect_err "unknown parameter 'btlx'"
rm "$HOME/.hnp/mca-params.conf"

step="selection parameter"
run_info --parsable --mca routed radix --param routed base
expect_status 0
expect_param routed radix "command line"
run_info --mca routed radix
expect_status 0
expect_out "routed = radix"

echo "PASS: $checks checks"
exit 0
