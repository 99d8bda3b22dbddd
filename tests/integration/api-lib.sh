# SPDX-License-Identifier: BSD-3-Clause
# Sourced (POSIX sh) by the tests of the installed headers: the installed
# API as the preprocessor reads it. The caller has set $tmp, $CC,
# $top_srcdir and $hnp_installed_headers.

# installed_api: writes $tmp/api, one line a function declared in an
# installed header, "name exported" or "name hidden" (marked HNP_EXPORT or
# not), read with no comments and macros expanded from every installed
# header. Returns 1, having printed the preprocessor's errors, when the
# headers do not preprocess together.
installed_api() {
    api_incdirs=""
    for h in $hnp_installed_headers; do
        printf '#include "%s"\n' "${h##*/}"
        case " $api_incdirs " in
            *" -I$top_srcdir/${h%/*} "*) ;;
            *) api_incdirs="$api_incdirs -I$top_srcdir/${h%/*}" ;;
        esac
    done >"$tmp/api.c"
    # shellcheck disable=SC2086 # the flags are a list
    $CC -E -P $api_incdirs "$tmp/api.c" >"$tmp/api.i" 2>"$tmp/cpp.err" || {
        cat "$tmp/cpp.err"
        return 1
    }
    # One declaration a line; a function's name is the first hnp_
    # identifier followed by its parameter list, with no "(" before it
    # (typedefs, and function pointers such as a module's members, are not
    # functions of the API).
    # shellcheck disable=SC2020 # each of ; { } ends a declaration
    tr '\n' ' ' <"$tmp/api.i" | tr ';{}' '\n\n\n' | awk '
        /^[ \t]*(typedef|static)[ \t]/ { next }
        {
            vis = "hidden"
            if (gsub(/__attribute__[ \t]*\(\([ \t]*visibility[ \t]*\([ \t]*"default"[ \t]*\)[ \t]*\)\)/, "")) vis = "exported"
            if (!match($0, /hnp_[A-Za-z0-9_]*[ \t]*\([ \t]*[^* \t]/)) next
            if (index(substr($0, 1, RSTART - 1), "(")) next
            name = substr($0, RSTART, RLENGTH)
            sub(/[ \t]*\(.*$/, "", name)
            print name, vis
        }' | sort -u >"$tmp/api"
}
