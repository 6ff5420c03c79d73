"""The scripts ``kubesim completion SHELL`` prints. Each asks ``PROGRAM __complete WORDS...
CURRENT`` (or ``__completeNoDesc``) for the candidates and reads the directive on the last line
(``kubesim.cli.completion`` documents the protocol), as cobra's generated scripts do.

Upstream: cobra ``bash_completionsV2.go``, ``zsh_completions.go``, ``fish_completions.go``,
``powershell_completions.go`` (the protocol and each shell's handling of the directives); these
scripts are kubesim's own, smaller, and the bash one needs no bash-completion package (it
splits the line itself, and offers only what follows a colon when bash breaks words there).
"""

from __future__ import annotations

_BASH = r"""# bash completion for %(prog)s                          -*- shell-script -*-
#
# Load it in the current shell:      source <(%(prog)s completion bash)
# With an alias, as for kubectl:     alias k=%(prog)s; complete -o default -F __start_%(fn)s k
#
# The words typed so far go to "%(prog)s __completeNoDesc"; its last output line is ":N", N the
# directive (1 error, 2 no space, 4 no file names, 8 file extensions, 16 directories).

__%(fn)s_words()
{
    # the line up to the cursor, split on blanks only (so --output=json and type/name stay whole)
    local line="${COMP_LINE:0:COMP_POINT}"
    read -r -a words <<< "$line"
    if [[ -z $line || $line == *[[:blank:]] ]]; then
        words+=("")
    fi
    cur="${words[${#words[@]}-1]}"
}

__start_%(fn)s()
{
    local cur words out directive c
    COMPREPLY=()
    __%(fn)s_words
    local request="${words[0]} __completeNoDesc"
    for c in "${words[@]:1}"; do  # the last word is the one being completed, '' when empty
        request+=" $(printf '%%q' "$c")"
    done
    out=$(eval "$request" 2>/dev/null)
    if [[ $out == *$'\n':* ]]; then
        directive=${out##*$'\n':}
        out=${out%%$'\n':*}
    elif [[ $out == :* ]]; then
        directive=${out#:}
        out=""
    else
        directive=0
    fi
    [[ $directive =~ ^[0-9]+$ ]] || directive=0
    (( directive & 1 )) && return
    [[ $cur == -*=* ]] && cur=${cur#*=}
    if (( directive & 8 )); then
        local exts=""
        while IFS= read -r c; do
            [[ -n $c ]] && exts+="${exts:+|}$c"
        done <<< "$out"
        local -a files
        mapfile -t files < <(compgen -d -- "$cur"; compgen -f -- "$cur" | grep -E "\.(${exts})\$")
        COMPREPLY=("${files[@]}")
        compopt -o filenames 2>/dev/null
        return
    fi
    if (( directive & 16 )); then
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
        compopt -o filenames 2>/dev/null
        return
    fi
    while IFS= read -r c; do
        [[ -n $c && $c == "$cur"* ]] && COMPREPLY+=("$c")
    done <<< "$out"
    if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
        # bash replaces only the part after the last colon: offer that part
        local i colon="${cur%%"${cur##*:}"}"
        for i in "${!COMPREPLY[@]}"; do
            COMPREPLY[i]=${COMPREPLY[i]#"$colon"}
        done
    fi
    (( directive & 2 )) && compopt -o nospace 2>/dev/null
    if (( directive & 4 )) && (( ${#COMPREPLY[@]} == 0 )); then
        compopt +o default 2>/dev/null
    fi
    return 0
}

complete -o default -F __start_%(fn)s %(prog)s
"""

_ZSH = r"""#compdef %(prog)s
compdef _%(fn)s %(prog)s

# zsh completion for %(prog)s: load it with  source <(%(prog)s completion zsh)
# (after compinit). The words go to "%(prog)s __complete"; the last line is ":N", the directive.

_%(fn)s()
{
    local -a completions
    local out directive comp request w nospace=""
    request="${words[1]} __complete"
    for w in "${(@)words[2,CURRENT]}"; do  # the last word is the one being completed
        request+=" ${(qq)w}"
    done
    out=$(eval "$request" 2>/dev/null)
    directive=${${out##*:}:-0}
    out=${out%%:*}
    (( directive & 1 )) && return
    (( directive & 2 )) && nospace="-S ''"
    if (( directive & 8 )); then
        local exts=""
        for comp in ${(f)out}; do exts+="${exts:+|}$comp"; done
        _files -g "*.(${exts})"
        return
    fi
    if (( directive & 16 )); then
        _files -/
        return
    fi
    for comp in ${(f)out}; do
        [[ -z $comp ]] && continue
        comp=${comp//:/\\:}
        comp=${comp/$'\t'/:}
        completions+=("$comp")
    done
    if (( ${#completions} > 0 )); then
        eval _describe "completions" completions $nospace
    elif (( (directive & 4) == 0 )); then
        _files
    fi
}

if [ "$funcstack[1]" = "_%(fn)s" ]; then
    _%(fn)s "$@"
fi
"""

_FISH = r"""# fish completion for %(prog)s: load it with  %(prog)s completion fish | source
# The words go to "%(prog)s __complete"; the last line is ":N", the directive.

function __%(fn)s_complete
    set -l args (commandline -opc)
    set -e args[1]
    set -l cur (commandline -ct)
    set -l out (%(prog)s __complete $args "$cur" 2>/dev/null)
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    if test (math "bitand($directive, 1)") -ne 0
        return
    end
    if test (math "bitand($directive, 24)") -ne 0
        __fish_complete_path $cur
        return
    end
    for c in $out
        echo $c
    end
    if test (count $out) -eq 0; and test (math "bitand($directive, 4)") -eq 0
        __fish_complete_path $cur
    end
end

complete -c %(prog)s -e
complete -c %(prog)s -f -a '(__%(fn)s_complete)'
"""

_POWERSHELL = r"""# powershell completion for %(prog)s: load it with
#   %(prog)s completion powershell | Out-String | Invoke-Expression
# The words go to "%(prog)s __complete"; the last line is ":N", the directive.

Register-ArgumentCompleter -CommandName '%(prog)s' -ScriptBlock {
    param($WordToComplete, $CommandAst, $CursorPosition)
    $line = "$CommandAst"
    if ($line.Length -gt $CursorPosition) { $line = $line.Substring(0, $CursorPosition) }
    $words = @($line.Split(" ", [StringSplitOptions]::RemoveEmptyEntries))
    $program = $words[0]
    $rest = @()
    if ($words.Count -gt 1) { $rest = $words[1..($words.Count - 1)] }
    if ($WordToComplete -eq "") { $rest += '""' }
    $out = @(& $program __complete @rest 2>$null)
    if ($out.Count -eq 0) { return }
    $directive = [int]($out[-1].TrimStart(':'))
    if ($directive -band 1) { return }
    $items = @()
    if ($out.Count -gt 1) { $items = $out[0..($out.Count - 2)] }
    foreach ($item in $items) {
        $value, $desc = $item.Split("`t", 2)
        if (-not $desc) { $desc = " " }
        if ($value.StartsWith($WordToComplete)) {
            [System.Management.Automation.CompletionResult]::new($value, $value, 'ParameterValue', $desc)
        }
    }
}
"""


def _render(template: str, prog: str) -> str:
    return template % {"prog": prog, "fn": prog.replace("-", "_")}


def bash(prog: str) -> str:
    return _render(_BASH, prog)


def zsh(prog: str) -> str:
    return _render(_ZSH, prog)


def fish(prog: str) -> str:
    return _render(_FISH, prog)


def powershell(prog: str) -> str:
    return _render(_POWERSHELL, prog)
