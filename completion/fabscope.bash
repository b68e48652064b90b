# bash completion for fabscope                              -*- shell-script -*-
#
# Installed as share/bash-completion/completions/fabscope. The subcommands and
# options are read from the binary's own `--help` (CLI11's "Options:" and
# "Subcommands:" tables), so there is no second list to keep in sync: a new
# subcommand or option completes as soon as the binary has it.
# tests/cli/completion_test.cpp checks this against the binary's help.

# _fabscope_table BINARY [SUBCOMMAND...]: one line per entry of that level's help:
#   sub NAME            a subcommand
#   opt NAME            an option without a value (a flag)
#   val NAME TYPE       an option that takes a value of CLI11 type TYPE (TEXT:FILE, INT:{1,2}, ...)
_fabscope_table() {
    "$@" --help 2>/dev/null | awk '
        /^$/ { section = ""; next }
        /^[A-Z][A-Za-z]*:$/ { section = $0; next }
        section == "Subcommands:" && /^  [^ ]/ { print "sub", $1; next }
        section == "Options:" && /^  -/ {
            line = substr($0, 3)
            # "NAMES TYPE  description" or "NAMES  description": the head ends
            # at the first run of two spaces (or the end of the line).
            cut = index(line, "  ")
            head = cut ? substr(line, 1, cut - 1) : line
            n = split(head, part, " ")
            count = split(part[1], names, ",")
            for (i = 1; i <= count; i++) {
                if (n > 1) print "val", names[i], part[2]
                else print "opt", names[i]
            }
        }'
}

_fabscope() {
    local cur=${COMP_WORDS[COMP_CWORD]} bin=${COMP_WORDS[0]}
    bin=${bin/#\~/$HOME}
    COMPREPLY=()
    command -v "$bin" >/dev/null 2>&1 || return 0

    local -a path=()
    local table global i w skip=""
    table=$(_fabscope_table "$bin")
    global=$table
    # Walk the words before the cursor: descend into subcommands, step over
    # option values, and hand over to the command after `lab exec --`.
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if [[ -n $skip ]]; then
            skip=""
            [[ $w == = ]] && skip=1 # --opt = value: the value is the next word
            continue
        fi
        if [[ $w == -- ]]; then
            if declare -F _command_offset >/dev/null; then
                _command_offset $((i + 1))
            elif ((COMP_CWORD == i + 1)); then
                mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
            else
                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            fi
            return 0
        fi
        if [[ $w == -* ]]; then
            grep -qxF "val $w" < <(printf '%s\n' "$table" "$global" | cut -d' ' -f1,2) && skip=1
            continue
        fi
        if grep -qxF "sub $w" <<<"$table"; then
            path+=("$w")
            table=$(_fabscope_table "$bin" "${path[@]}")
        fi
    done

    # The value of an option: a choice list, a file, or nothing to offer.
    local prev=${COMP_WORDS[COMP_CWORD - 1]}
    [[ $prev == = ]] && ((COMP_CWORD >= 2)) && prev=${COMP_WORDS[COMP_CWORD - 2]}
    [[ $cur == = ]] && cur=""
    local type
    type=$(printf '%s\n' "$table" "$global" | awk -v o="$prev" '$1 == "val" && $2 == o { print $3; exit }')
    if [[ $prev == -* && -n $type ]]; then
        if [[ $type == *:\{*\} ]]; then
            local choices=${type#*:\{}
            mapfile -t COMPREPLY < <(compgen -W "$(tr ',' ' ' <<<"${choices%\}}")" -- "$cur")
        elif [[ $type == TEXT* ]]; then
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        fi
        return 0
    fi

    if [[ $cur == -* ]]; then
        local opts
        # Global options (--json, -q, ...) work after a subcommand too.
        opts=$(printf '%s\n' "$table" "$global" | awk '$1 != "sub" { print $2 }' | sort -u)
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
        return 0
    fi
    local subs
    subs=$(awk '$1 == "sub" { print $2 }' <<<"$table")
    if [[ -n $subs ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$subs" -- "$cur")
    else
        # Positional arguments are snapshots, plans, endpoints: offer files.
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
    return 0
}
complete -F _fabscope fabscope
