# SPDX-License-Identifier: BSD-3-Clause
# Sourced (POSIX sh) by the tests of the out-of-tree examples: a staged
# installation of this build tree, and an example built against it as a
# third party would, through pkg-config only. The caller has set $tmp,
# defines fail(), and has checked that pkg-config, a C compiler and
# timeout(1) exist.

# Show the end of a log, then fail.
fail_log() {
    tail -n 40 "$1" >&2 || true
    fail "$2"
}

# make in DIR, without the flags of the make running this test (its
# jobserver, the variables of `make check`).
plain_make() { # SECONDS DIR ARGS...
    example_limit=$1 example_dir=$2
    shift 2
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
        timeout "$example_limit" make -C "$example_dir" "$@"
}

# stage_install: install the build tree under $tmp/dest, as DESTDIR (not
# another prefix: the installed files, hnp-component.pc above all, name
# the configured prefix; pkg-config's sysroot then maps the paths it
# prints into the stage). Sets dest, pc and info (the installed
# hnp-component.pc and hnp-info), and points pkg-config there. The runtime
# is in the programs: no library of ours may be installed.
stage_install() {
    dest=$tmp/dest
    plain_make 120 "$top_builddir" install DESTDIR="$dest" \
        >"$tmp/install.log" 2>&1 || fail_log "$tmp/install.log" "make install DESTDIR=$dest failed"
    pc=$(staged hnp-component.pc -type f)
    info=$(staged hnp-info -type f)
    example_lib=$(staged 'libhnp*')
    [ -n "$pc" ] || fail "make install did not install hnp-component.pc"
    [ -n "$info" ] || fail "make install did not install hnp-info"
    [ -z "$example_lib" ] || fail "make install installed a library: $example_lib"
    PKG_CONFIG_PATH=$(dirname "$pc")
    PKG_CONFIG_SYSROOT_DIR=$dest
    export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
}

# staged NAME [FIND-TESTS]: the first installed file called NAME.
staged() {
    find "$dest" -name "$@" | head -n 1
}

# build_example NAME [DIR]: copy DIR (contrib/NAME of the source tree by
# default; the copy installed under the documentation directory, say) to
# $tmp/NAME, as someone who only has the installation would, build it with
# strict flags and check that it exports its descriptor alone.
build_example() {
    cp -R "${2:-$top_srcdir/contrib/$1}" "$tmp/$1"
    # Copies of a read-only source tree (make distcheck) are read-only too.
    chmod -R u+w "$tmp/$1"
    rm -f "$tmp/$1"/*.o "$tmp/$1"/*.so
    plain_make 60 "$tmp/$1" CFLAGS="-O2 -Wall -Wextra -Werror" \
        >"$tmp/build.log" 2>&1 || fail_log "$tmp/build.log" "the example $1 does not build"
    plain_make 30 "$tmp/$1" check-exports \
        >"$tmp/exports.log" 2>&1 || fail_log "$tmp/exports.log" "the example $1 exports more than its descriptor"
}
