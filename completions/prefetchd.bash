# bash completion for prefetchd. Made by `prefetchd help --completions bash`; do not edit by hand.
_prefetchd() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "run clean stats check verify path remove fsck merge export help -h --help -V --version" -- "$cur"))
        return
    fi
    local options values
    case ${COMP_WORDS[1]} in
        run) options="--cache -C --concurrency -c --shard --dry-run -n --report -o --junit --progress --quiet -q --verbose -v --log-format --help -h" ;;
        clean) options="--cache -C --max-age --max-size --dry-run -n --log-format --help -h" ;;
        stats) options="--cache -C --format --output -o --help -h" ;;
        check) options="--help -h" ;;
        verify) options="--cache -C --log-format --help -h" ;;
        path) options="--cache -C --job --variant --help -h" ;;
        remove) options="--cache -C --set --host --job --all --dry-run -n --help -h" ;;
        fsck) options="--cache -C --repair --help -h" ;;
        merge) options="--into --dry-run -n --copy --help -h" ;;
        export) options="--layout --cache -C --variant --dry-run -n --help -h" ;;
        help) COMPREPLY=($(compgen -W "run clean stats check verify path remove fsck merge export" -- "$cur")); return ;;
        *) return ;;
    esac
    case $prev in
        --cache|-C) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --concurrency|-c) COMPREPLY=(); return ;;
        --shard) COMPREPLY=(); return ;;
        --report|-o) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --junit) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --progress) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --log-format) COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
        --max-age) COMPREPLY=(); return ;;
        --max-size) COMPREPLY=(); return ;;
        --format) COMPREPLY=($(compgen -W "text json prometheus html" -- "$cur")); return ;;
        --output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --job) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --variant) COMPREPLY=(); return ;;
        --set) COMPREPLY=(); return ;;
        --host) COMPREPLY=(); return ;;
        --into) COMPREPLY=(); return ;;
        --layout) COMPREPLY=($(compgen -W "sdwebimage" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _prefetchd prefetchd
