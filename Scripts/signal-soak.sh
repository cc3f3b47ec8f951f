#!/usr/bin/env bash
# Soak test of HandlerKitSignals' guarantee with real processes: 4 consumer processes run at once and
# a poster beside them, each killing itself with SIGKILL at random injected points (mid-post, after a
# claim, inside the handler, after the handler before completion), until KILLS kills (default 1000).
# Then it checks the store: every delivery completed exactly once, none lost, every interrupted handler
# run again, and prints the counts. Exit status 0 when the check passes.
#
#   bash Scripts/signal-soak.sh [KILLS]          (CONFIGURATION=release for a release build of the probe)
set -euo pipefail
cd "$(dirname "$0")/.."
kills_wanted="${1:-1000}"
configuration="${CONFIGURATION:-debug}"
swift build -c "$configuration" --product handlerkit-signals-probe >/dev/null
probe="$(swift build -c "$configuration" --show-bin-path)/handlerkit-signals-probe"

work="$(mktemp -d "${TMPDIR:-/tmp}/handlerkit-signal-soak.XXXXXX")"
trap 'rm -rf "$work"' EXIT
db="$work/signals.sqlite"
log="$work/handlers.log"
: >"$work/consumers" >"$work/posts" >"$work/kills"
points=(afterClaim insideHandler beforeCompletion)
rounds=0

# Each round registers 25 once and 25 every-revision consumers for new signals, then posts each signal
# twice from a poster killed mid-post now and then, while 4 consumer processes deliver and are killed.
poster() {
    local prefix="$1" next=0 signals=25
    for revision in 1 2; do
        next=0
        while [[ $next -lt $signals ]]; do
            local out status=0
            out="$("$probe" post --db "$db" --component poster --prefix "$prefix" --signals "$signals" --from "$next" \
                --kill-at postBeforeCommit --kill-after $((RANDOM % 8 + 1)) 2>&1)" || status=$?
            grep '^posted ' <<<"$out" >>"$work/posts" || true
            next=$((next + $(grep -c '^posted ' <<<"$out" || true)))
            if [[ $status -eq 137 ]]; then echo post >>"$work/kills"; elif [[ $status -ne 0 ]]; then echo "$out" >&2; exit 1; fi
        done
    done
}

consumer() {
    local status
    while true; do
        status=0
        "$probe" consume --db "$db" --component app --kill-at "${points[$((RANDOM % 3))]}" \
            --kill-after $((RANDOM % 3 + 1)) >/dev/null 2>"$work/consumer-$1.err" || status=$?
        if [[ $status -eq 137 ]]; then
            echo consume >>"$work/kills"
        elif [[ $status -ne 0 ]]; then
            cat "$work/consumer-$1.err" >&3
            exit 1
        elif [[ -e "$work/posting-done" ]] && [[ "$("$probe" open --db "$db")" == "open 0" ]]; then
            return 0
        fi
    done
}

# The consumers' standard error is dropped (bash reports every killed child there); real errors go to fd 3.
exec 3>&2
start=$SECONDS
while [[ $(wc -l <"$work/kills") -lt $kills_wanted ]]; do
    rounds=$((rounds + 1))
    rm -f "$work/posting-done"
    "$probe" register --db "$db" --component app --log "$log" --prefix "r$rounds-" --signals 25 --stop >>"$work/consumers"
    "$probe" register --db "$db" --component app --log "$log" --prefix "r$rounds-" --signals 25 --mode every --stop >>"$work/consumers"
    for index in 1 2 3 4; do consumer "$index" 2>/dev/null & done
    poster "r$rounds-"
    touch "$work/posting-done"
    wait
    echo "round $rounds: $(wc -l <"$work/kills") kills so far" >&2
done

echo "soak: $(wc -l <"$work/kills") kills ($(grep -c consume "$work/kills") consumer, $(grep -c post "$work/kills") poster) in $rounds rounds, $((SECONDS - start)) s, 4 concurrent consumer processes"
"$probe" check --db "$db" --log "$log" --consumers "$work/consumers" --posts "$work/posts"
