#!/usr/bin/env bash
# Measures what the kernel coverage counters buy: runs a fuzzer on records.ptx once per
# seed with kernel coverage on and off, one run at a time, each from an empty corpus with
# a fixed time budget, and prints one table row per run (README.md, "What libFuzzer sees,
# and coverage on and off measured").
#
#   measure.sh libfuzzer BINARY [SECONDS] [SEEDS...]   a built fuzz target (cargo fuzz build)
#   measure.sh ptxjit PTXJIT [SECONDS] [SEEDS...]      the `ptxjit fuzz` command
#
# Defaults: 120 s per run, seeds 1 2 3 4 5. The libFuzzer runs use ORACLE=0 unless ORACLE
# is set (the Rust model's own instrumented compares would guide both runs alike) and
# default libFuzzer options otherwise. Columns: fuzzer, seed, coverage, finding (kind and
# PTX location) or "none", inputs run, wall s, CPU s (user+sys), corpus, cov, ft
# (libFuzzer's last status line; `ptxjit fuzz`: corpus and coverage features).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mode="$1"
bin="$(realpath "$2")"
secs="${3:-120}"
shift $(($# < 3 ? $# : 3))
seeds=("$@")
[[ ${#seeds[@]} -gt 0 ]] || seeds=(1 2 3 4 5)
out="${MEASURE_DIR:-$(mktemp -d)}"
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg), $secs s per run, logs in $out"
echo "| fuzzer | seed | kernel coverage | first finding | inputs | wall s | CPU s | corpus | cov | ft |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for seed in "${seeds[@]}"; do
    for cov in on off; do
        d="$out/$mode-$cov-$seed"
        mkdir -p "$d/corpus"
        if [[ $mode == libfuzzer ]]; then
            KERNEL_COVERAGE=$([[ $cov == on ]] && echo 1 || echo 0) ORACLE="${ORACLE:-0}" \
                /usr/bin/time -f "%e %U %S" -o "$d/time" "$bin" -seed="$seed" \
                -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$d/" \
                "$d/corpus" >"$d/log" 2>&1
            status=$(grep -E '^#[0-9]+' "$d/log" | tail -1)
            inputs=$(grep -oP 'stat::number_of_executed_units: *\K[0-9]+' "$d/log" || true)
            [[ -n $inputs ]] || inputs=$(grep -oP '^#\K[0-9]+' <<<"$status")
            corpus=$(grep -oP 'corp: \K[0-9]+' <<<"$status")
            c=$(grep -oP 'cov: \K[0-9]+' <<<"$status")
            ft=$(grep -oP 'ft: \K[0-9]+' <<<"$status")
        else
            flag=$([[ $cov == on ]] && echo "" || echo "--no-coverage")
            (cd "$d" && /usr/bin/time -f "%e %U %S" -o "$d/time" "$bin" fuzz "$here/records.ptx" \
                --kernel parse_records --input 'u8[rest:4096]' --input 'u32=len(0)' \
                --input 'out:u32[33]' --seed "$seed" --max-time "$secs" --stop-at-first \
                $flag --artifacts "$d" >"$d/log" 2>&1)
            summary=$(grep -E '^[0-9]+ inputs in' "$d/log" | tail -1)
            inputs=$(grep -oP '^\K[0-9]+' <<<"$summary")
            corpus=$(grep -oP 'corpus \K[0-9]+' <<<"$summary")
            c="—"
            ft=$(grep -oP '\K[0-9]+(?= coverage features)' <<<"$summary")
        fi
        kind=$(grep -oP 'ptxjit fuzz: \K[A-Za-z]+(?=:)' "$d/log" | head -1)
        loc=$(grep -oP 'ptxjit fuzz: .*? at \K[^ ]+:[0-9]+' "$d/log" | head -1)
        finding="${kind:+$kind ${loc##*/}}"
        [[ -n $finding ]] || finding="none"
        read -r wall user sys < <(tail -1 "$d/time" 2>/dev/null) || true
        cpu=$(awk "BEGIN{printf \"%.1f\", ${user:-0}+${sys:-0}}")
        echo "| $mode | $seed | $cov | $finding | $inputs | $wall | $cpu | $corpus | $c | $ft |"
    done
done
