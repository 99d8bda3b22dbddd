#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# check-layout.sh [SRCDIR]: the dependency rules of the source tree (the
# one-way dependency direction of the design: components -> framework and
# installed headers, runtime -> framework, framework -> libltdl and libc;
# inside runtime/, as listed below), checked on every #include "..." of
# framework/, components/, runtime/ and tests/. Each quoted include is
# resolved as the compiler resolves it (the including file's folder, then
# the -I folders of Makefile.am, in order) and the folder it lands in is
# checked against the including file's folder:
#
#   framework        includes framework only
#   wire hosts procs bind oob
#                    framework and wire only
#   launch           framework, wire and procs only
#   core             anything of runtime/ but the programs; no component
#   hnp hnpd info    runtime/ and framework/, never another program
#   a component      its own folder and installed headers only (the
#                    compiler enforces it too: a component's include path
#                    is the installed headers' folder, components/Makefile.inc)
#   X/internal.h, X/*_internal.h
#                    only from folder X and from X's tests
#
# And every source file (C, shell, make fragments, man pages) carries an
# SPDX-License-Identifier line.
#
# Prints one line a broken rule (file:line, the include, the rule) and exits
# 1 if there is any; exits 0 silently otherwise.
set -uo pipefail

top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2

# The -I folders of Makefile.am, in order (the build directory's config.h
# is not in the source tree and is skipped).
mapfile -t incdirs < <(sed -n 's/^[[:space:]]*-I\$(top_srcdir)\/\([^ \\]*\).*/\1/p' Makefile.am)

# Installed headers: every file added to hnpinclude_HEADERS.
installed=" $(awk '
    /^hnpinclude_HEADERS[[:space:]]*\+?=/ { on = 1; sub(/^[^=]*=/, "") }
    on { line = $0; cont = sub(/\\[[:space:]]*$/, "", line)
         n = split(line, w, /[[:space:]]+/)
         for (i = 1; i <= n; i++) if (w[i] != "") printf "%s ", w[i]
         if (!cont) on = 0 }' Makefile.am framework/Makefile.inc $(find runtime components -name Makefile.inc)) "

# room PATH: the folder a file belongs to for these rules.
room() {
    case $1 in
        framework/*) echo framework ;;
        components/*/*/*) local r=${1#components/}; echo "component:${r%/*}" ;;
        components/*) echo components ;;
        runtime/*/*) local r=${1#runtime/}; echo "${r%%/*}" ;;
        tests/unit/*/*) local r=${1#tests/unit/}; echo "test:${r%%/*}" ;;
        tests/*) echo test ;;
        *) echo other ;;
    esac
}

# resolve FILE NAME: the path (from the top) that #include "NAME" in FILE
# reaches, or nothing.
resolve() {
    local dir=${1%/*} d p
    for d in "$dir" "${incdirs[@]}"; do
        p=$d/$2
        while [[ $p == */../* ]]; do
            p=$(sed 's#[^/]*/\.\./##' <<<"$p")
        done
        [ -f "$p" ] && { echo "$p"; return; }
    done
}

violations=0
broke() {
    echo "$1: #include \"$2\" ($3): $4"
    violations=$((violations + 1))
}

# allowed FROM-ROOM TO-ROOM TO-PATH: empty if the include is allowed, else
# the rule it breaks.
allowed() {
    local from=$1 to=$2 path=$3
    case $from in
        framework)
            [ "$to" = framework ] || echo "framework/ includes nothing from runtime/ or components/" ;;
        wire|hosts|procs|bind|oob)
            case $to in framework|wire|"$from") ;;
                *) echo "$from/ includes only framework/ and wire/" ;; esac ;;
        launch)
            case $to in framework|wire|procs|launch) ;;
                *) echo "launch/ includes only framework/, wire/ and procs/" ;; esac ;;
        core)
            case $to in hnp|hnpd|info) echo "core/ never includes a program folder" ;;
                component:*) echo "core/ never includes a component" ;; esac ;;
        hnp|hnpd|info)
            case $to in
                hnp|hnpd|info) [ "$to" = "$from" ] ||
                    echo "a program folder never includes another program's" ;;
                component:*) echo "a program never includes a component" ;;
            esac ;;
        component:*)
            [ "$to" = "$from" ] || case "$installed" in *" $path "*) ;;
                *) echo "a component includes only installed headers and its own" ;; esac ;;
    esac
}

# internal FROM-FILE TO-PATH: the rule broken by including a folder's
# internal header from outside the folder and its tests, or nothing.
internal() {
    local from=$1 to=$2 base=${2##*/} dir=${2%/*} sub
    case $base in internal.h|*_internal.h) ;; *) return ;; esac
    [ "${from%/*}" = "$dir" ] && return
    case $dir in
        runtime/*) sub=${dir#runtime/} ;;
        framework*) sub=framework ;;
        components/*) sub=components ;;
        *) sub=$dir ;;
    esac
    case $from in tests/unit/"$sub"/*|tests/fuzz/*) return ;; esac
    echo "$dir's internal header is included only inside $dir and its tests"
}

while IFS= read -r file; do
    from=$(room "$file")
    while IFS=: read -r line name; do
        [ "$name" = config.h ] && continue
        to_path=$(resolve "$file" "$name")
        if [ -z "$to_path" ]; then
            case $name in static_components.h) continue ;; esac
            broke "$file:$line" "$name" "not found" "an include names a file of the tree"
            continue
        fi
        rule=$(internal "$file" "$to_path")
        [ -z "$rule" ] && rule=$(allowed "$from" "$(room "$to_path")" "$to_path")
        [ -n "$rule" ] && broke "$file:$line" "$name" "$to_path" "$rule"
    done < <(awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
                      n = $0; sub(/^[^"]*"/, "", n); sub(/".*/, "", n)
                      print NR ":" n }' "$file")
done < <(find framework components runtime tests -name '*.[ch]' | sort)

while IFS= read -r file; do
    grep -q 'SPDX-License-Identifier: ' "$file" && continue
    echo "$file: no SPDX-License-Identifier line"
    violations=$((violations + 1))
done < <(git ls-files 2>/dev/null | grep -E '(\.(c|h|sh|inc|am|ac|gp|in|[178])|/Makefile|\.ci/run)$' ||
         find framework components runtime tests contrib -name '*.[ch]' -o -name '*.sh' -o -name '*.inc')

[ "$violations" -eq 0 ] && exit 0
echo "$violations line(s) above break the rules of the tree" >&2
exit 1
