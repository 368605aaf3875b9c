# bash completion for thpctl                                  -*- shell-script -*-
# SPDX-License-Identifier: MIT
#
# Commands, each command's options (read from `thpctl CMD --help`, so they
# cannot drift from the binary), PIDs (shown with their comm when several
# match), directories and capture bundles (*.tar.gz) for --sysroot, setting keys and their values (from the running kernel's
# /sys/kernel/mm/transparent_hugepage), lab experiments (from `thpctl lab
# --help`), snapshot/hugetlb/trace subcommands and option values.

_thpctl_thp=/sys/kernel/mm/transparent_hugepage

# the commands, from `thpctl --help` ("  NAME  description" under "commands:")
_thpctl_commands() {
	"$1" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
}

# every --option a help text names (usage lines and option lists)
_thpctl_options() {
	"$1" "$2" --help 2>/dev/null | grep -oE -- '(^|[][ ,|(])--[a-z][a-z0-9-]*' |
		sed 's/^[^-]*//' | sort -u
	echo "-h --help"
}

# PID candidates for prefix $1: "PID:comm" when several match, the bare PID when one does
_thpctl_pids() {
	local cur=$1 d pid comm
	local -a m=()
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[[ $pid == "$cur"* ]] || continue
		comm=$(cat "$d/comm" 2>/dev/null) || continue
		m+=("$pid:${comm// /_}")
	done
	if [ "${#m[@]}" -eq 1 ]; then
		COMPREPLY=("${m[0]%%:*}")
	else
		COMPREPLY=("${m[@]}")
	fi
}

# writable THP knobs as KEY= (relative to $_thpctl_thp), or KEY=VALUE for a choice file
_thpctl_settings() {
	local cur=$1 f key v
	if [[ $cur == *=* ]]; then
		key=${cur%%=*}
		f=$_thpctl_thp/$key
		[ -f "$f" ] || return
		v=$(tr -d '[]' <"$f" 2>/dev/null)
		# a choice file lists its words; a number file holds one value. Readline
		# replaces only the text after '=' when '=' breaks words (the default).
		if [[ $COMP_WORDBREAKS == *=* ]]; then
			COMPREPLY=($(compgen -W "$v" -- "${cur#*=}"))
		else
			COMPREPLY=($(compgen -P "$key=" -W "$v" -- "${cur#*=}"))
		fi
		return
	fi
	[ -d "$_thpctl_thp" ] || return
	local keys
	keys=$(cd "$_thpctl_thp" && find . -type f -perm -u+w ! -path '*/stats/*' 2>/dev/null | sed 's|^\./||; s|$|=|')
	COMPREPLY=($(compgen -W "$keys" -- "$cur"))
	compopt -o nospace 2>/dev/null
}

_thpctl_lab_experiments() {
	"$1" lab --help 2>/dev/null | sed -n '/^experiments:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
	echo list
}

_thpctl() {
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -s -n = || return
	else
		# without bash-completion: words split at blanks only (not at '=')
		local line=${COMP_LINE:0:COMP_POINT}
		read -ra words <<<"$line"
		[[ $line == *[[:space:]] ]] && words+=('')
		cword=$((${#words[@]} - 1))
		cur=${words[cword]} prev=${words[cword - 1]:-}
	fi
	local bin=${words[0]} cmd='' i arg=0
	command -v "$bin" >/dev/null 2>&1 || bin=thpctl
	# the command: the first word after the global options
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--sysroot | --root | --color) ((i++)) ;;
		-*) ;;
		*)
			cmd=${words[i]}
			break
			;;
		esac
	done
	# operands of the command before the cursor
	for ((i = i + 1; i < cword; i++)); do [[ ${words[i]} == -* ]] || ((arg++)); done

	# an option's fixed values
	local values=
	case $prev in
	--color) values="auto always never" ;;
	--format) values="tmpfiles systemd cmdline sysctl tuned" ;;
	--sort) values="ahp rss share hg pid comm" ;;
	--by) values="cgroup" ;;
	--state) values="warm cold asis" ;;
	--page) values="2M 1G" ;;
	esac
	if [ -n "$values" ]; then
		COMPREPLY=($(compgen -W "$values" -- "$cur"))
		return
	fi
	case $prev in
	--sysroot | --root)
		# a recorded tree (directory) or a bundle of thpctl capture
		COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.tar.gz' -- "$cur"))
		return
		;;
	--tuned-parent)
		# tuned's profiles: directories holding a tuned.conf
		local d names=
		for d in /etc/tuned/*/tuned.conf /etc/tuned/profiles/*/tuned.conf \
			/usr/lib/tuned/*/tuned.conf /usr/lib/tuned/profiles/*/tuned.conf; do
			[ -f "$d" ] && d=${d%/tuned.conf} && names+=" ${d##*/}"
		done
		COMPREPLY=($(compgen -W "$names" -- "$cur"))
		return
		;;
	--pid)
		_thpctl_pids "$cur"
		return
		;;
	-o | --output | --textfile | --report | --record)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	esac

	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--sysroot --root --json --no-color --color --wait --version -V --help -h" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_thpctl_commands "$bin")" -- "$cur"))
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_thpctl_options "$bin" "$cmd")" -- "$cur"))
		return
	fi
	case $cmd in
	maps | why | collapse) [ "$arg" -eq 0 ] && _thpctl_pids "$cur" ;;
	set | persist) _thpctl_settings "$cur" ;;
	lab) [ "$arg" -eq 0 ] && COMPREPLY=($(compgen -W "$(_thpctl_lab_experiments "$bin")" -- "$cur")) ;;
	snapshot)
		if [ "$arg" -eq 0 ]; then
			COMPREPLY=($(compgen -W "save restore diff" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		;;
	hugetlb) [ "$arg" -eq 0 ] && COMPREPLY=($(compgen -W "plan" -- "$cur")) ;;
	trace) [ "$arg" -eq 0 ] && COMPREPLY=($(compgen -W "stalls" -- "$cur")) ;;
	run | ab) COMPREPLY=($(compgen -c -- "$cur")) ;;
	report) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -F _thpctl thpctl
