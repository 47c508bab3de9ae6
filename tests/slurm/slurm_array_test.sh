#!/usr/bin/env bash
# scripts/slurm/experiment.sbatch on a real single-node Slurm brought up here: installs Debian's
# slurm-wlm and munge when missing, starts munged, slurmctld and slurmd on a private
# configuration (its own munge key and socket, free ports, state in a temporary directory, no
# cgroups, no accounting), submits the smoke experiment as a 2-task job array and checks that
# both tasks succeeded and that the shared directory holds every run of the spec exactly once,
# from both shards. The daemons are stopped and the directory removed on every exit.
#
#   slurm_array_test.sh LOCUS SOURCE_DIR
#
# Exit status 77 (skipped, with the reason) where Slurm cannot be installed or started: no root
# and no passwordless sudo, no apt-get, or the installation fails.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 LOCUS SOURCE_DIR" >&2; exit 2; }
locus=$(realpath "$1")
src=$(realpath "$2")
spec=configs/experiments/smoke.yaml
shards=2
export PATH="$PATH:/usr/sbin:/sbin"
# A surrounding Slurm job must not leak into this cluster's commands.
while read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN)_' || true)

say() { printf '[slurm-array %3ds] %s\n' "$SECONDS" "$*"; }
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

[ -x "$locus" ] || fail "no launcher at $locus"
[ -f "$src/$spec" ] && [ -f "$src/scripts/slurm/experiment.sbatch" ] || fail "no $spec or template in $src"

# ---------------------------------------------------------------------------------------------
# Privileges and packages.
if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
else
    sudo=(none)
fi
have_slurm() {
    local cmd
    for cmd in slurmctld slurmd sbatch squeue sinfo scontrol scancel munged mungekey; do
        command -v "$cmd" >/dev/null || return 1
    done
}
if ! have_slurm; then
    [ "${sudo[0]:-}" != none ] ||
        skip "Slurm is not installed and cannot be installed here (not root, no passwordless sudo)"
    command -v apt-get >/dev/null ||
        skip "Slurm is not installed and cannot be installed here (no apt-get)"
    say "installing slurm-wlm and munge"
    apt_log=$(mktemp)
    if ! { "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=120 update -qq &&
           "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 \
               install -y -qq --no-install-recommends slurm-wlm munge; } >"$apt_log" 2>&1; then
        tail -n 20 "$apt_log"
        rm -f "$apt_log"
        skip "Slurm cannot be installed here: apt-get failed (output above)"
    fi
    rm -f "$apt_log"
    have_slurm || skip "Slurm cannot be installed here: slurm-wlm and munge lack their commands"
    say "installed"
fi
[ "${sudo[0]:-}" != none ] ||
    skip "slurmctld and slurmd need root: run as root or with passwordless sudo"

# ---------------------------------------------------------------------------------------------
# Teardown: cancel the job, stop the daemons started here (slurmd, slurmctld, munged), remove
# the directory. Runs on every exit, the failures' included.
tmp=""
run=""
submitted=no
sbatch_pid=""
daemons=() # "name pid", in start order
stop_pid() { # NAME PID: TERM, up to 10 s, then KILL
    local name=$1 pid=$2 i
    "${sudo[@]}" kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 50); do
        "${sudo[@]}" kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    if "${sudo[@]}" kill -0 "$pid" 2>/dev/null; then
        echo "$name (pid $pid) did not stop on SIGTERM; killing it" >&2
        "${sudo[@]}" kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}
teardown() {
    local status=$? i f
    trap - EXIT
    set +e
    [ -n "$sbatch_pid" ] && kill -TERM "$sbatch_pid" 2>/dev/null
    if [ "$submitted" = yes ]; then # every job of this private cluster
        squeue -h -o %A 2>/dev/null | xargs -r scancel 2>/dev/null
        for i in $(seq 30); do
            [ -z "$(squeue -h 2>/dev/null)" ] && break
            sleep 0.5
        done
    fi
    if [ "$status" -ne 0 ] && [ "$status" -ne 77 ] && [ -n "$tmp" ]; then
        for f in "$tmp"/job-*.out "$tmp"/sbatch.err ${run:+"$run"/log/*}; do
            "${sudo[@]}" test -s "$f" || continue
            echo "---- ${f#"$tmp"/} (last lines)"
            "${sudo[@]}" tail -n 15 "$f"
        done
    fi
    for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
        stop_pid ${daemons[i]}
    done
    [ -n "$tmp" ] && "${sudo[@]}" rm -rf "$tmp"
    exit "$status"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# $tmp: the test's files and the job logs; $run: the daemons' (root's) files. munged refuses a
# socket whose directories are not searchable by everyone.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-slurm.XXXXXX")
chmod 755 "$tmp"
run=$tmp/slurm
"${sudo[@]}" mkdir -m 755 "$run" "$run/log" "$run/state" "$run/spool"
conf=$tmp/slurm.conf
export SLURM_CONF=$conf
alive() { "${sudo[@]}" kill -0 "$1" 2>/dev/null; }

# ---------------------------------------------------------------------------------------------
# munge: a private key and socket (the system's /etc/munge is neither read nor written).
socket=$run/munge.sock
"${sudo[@]}" mungekey --create --keyfile="$run/munge.key" || fail "mungekey could not create a key"
"${sudo[@]}" munged --foreground --socket="$socket" --key-file="$run/munge.key" \
    --pid-file="$run/munged.pid" --log-file="$run/log/munged.log" --seed-file="$run/munged.seed" \
    </dev/null >"$tmp/munged.out" 2>&1 &
munged_pid=$!
daemons+=("munged $munged_pid")
for i in $(seq 100); do
    [ -S "$socket" ] && break
    alive "$munged_pid" || fail "munged exited: $(cat "$tmp/munged.out")"
    sleep 0.1
done
munge --socket="$socket" --no-input | unmunge --socket="$socket" >/dev/null ||
    fail "munged does not answer on $socket"

# ---------------------------------------------------------------------------------------------
# slurm.conf: one node (this host, as slurmd -C sees it), free ports, nothing outside $tmp.
host=$(hostname -s 2>/dev/null || uname -n)
host=${host%%.*}
node_line=$(slurmd -C | grep -m1 '^NodeName=') || fail "slurmd -C printed no node line"
node_hw=${node_line#NodeName=* }
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ctld_port=""
for i in $(seq 100); do
    p=$((16817 + 2 * (RANDOM % 5000)))
    if port_free "$p" && port_free "$((p + 1))"; then
        ctld_port=$p
        break
    fi
done
[ -n "$ctld_port" ] || fail "no two free ports found"
cat >"$conf" <<EOF
ClusterName=locustest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$((ctld_port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$run/state
SlurmdSpoolDir=$run/spool
SlurmctldPidFile=$run/slurmctld.pid
SlurmdPidFile=$run/slurmd.pid
SlurmctldLogFile=$run/log/slurmctld.log
SlurmdLogFile=$run/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 $node_hw State=UNKNOWN
PartitionName=locus Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
say "starting slurmctld and slurmd (node $host: $node_hw; ports $ctld_port, $((ctld_port + 1)))"
"${sudo[@]}" slurmctld -D -f "$conf" </dev/null >"$tmp/slurmctld.out" 2>&1 &
daemons+=("slurmctld $!")
"${sudo[@]}" slurmd -D -f "$conf" -N "$host" </dev/null >"$tmp/slurmd.out" 2>&1 &
daemons+=("slurmd $!")
state=""
for i in $(seq 120); do
    state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
    [ "$state" = idle ] && break
    for d in "${daemons[@]}"; do
        alive "${d#* }" || fail "${d%% *} exited: $(tail -n 5 "$tmp/${d%% *}.out")"
    done
    sleep 0.5
done
[ "$state" = idle ] || fail "node $host is not idle after 60 s (state '${state}')"
say "node $host idle"

# ---------------------------------------------------------------------------------------------
# The expected runs, all and per shard, from --dry-run (lines after "N runs": KEY -> CONFIG).
cd "$src"
keys_of() { "$locus" experiment "$spec" --dry-run "$@" | tail -n +2 | sed 's/ -> .*//' | sort; }
keys_of >"$tmp/expected" || fail "$locus experiment $spec --dry-run failed"
expected_runs=$(wc -l <"$tmp/expected")
[ "$expected_runs" -ge "$shards" ] || fail "$spec lists $expected_runs runs"
for k in $(seq "$shards"); do
    keys_of --shard "$k/$shards" >"$tmp/expected.$k" || fail "--dry-run --shard $k/$shards failed"
    [ -s "$tmp/expected.$k" ] || fail "shard $k/$shards has no runs"
done

# ---------------------------------------------------------------------------------------------
# The array, submitted as documented. One CPU per task (the template asks for 4) lets both tasks
# run at once on a small machine; the job logs go to $tmp, not to the working directory.
out=$tmp/out
export LOCUS=$locus
say "sbatch --array=1-$shards --wait scripts/slurm/experiment.sbatch $spec OUTDIR"
submitted=yes
# In the background, so that a signal to this script is handled at once.
timeout 240 sbatch --parsable --array=1-"$shards" --cpus-per-task=1 \
    --output="$tmp/job-%A_%a.out" --wait \
    scripts/slurm/experiment.sbatch "$spec" "$out" >"$tmp/sbatch.out" 2>"$tmp/sbatch.err" &
sbatch_pid=$!
sbatch_status=0
wait "$sbatch_pid" || sbatch_status=$?
sbatch_pid=""
jobid=$(head -n 1 "$tmp/sbatch.out" | cut -d';' -f1)
say "job $jobid ended, sbatch exit status $sbatch_status"
[ -n "$jobid" ] || fail "sbatch printed no job id: $(cat "$tmp/sbatch.err")"
[ "$sbatch_status" -eq 0 ] || fail "sbatch --wait exited with $sbatch_status"

# Both array tasks completed with exit code 0.
scontrol -o show job "$jobid" >"$tmp/jobs"
for k in $(seq "$shards"); do
    line=$(grep -E "(^| )ArrayTaskId=$k( |$)" "$tmp/jobs") || fail "no array task $k in scontrol"
    case "$line" in
    *" JobState=COMPLETED "*" ExitCode=0:0 "*) ;;
    *) fail "array task $k: $(grep -oE '(JobState|ExitCode)=[^ ]+' <<<"$line" | tr '\n' ' ')" ;;
    esac
    log=$tmp/job-${jobid}_$k.out
    [ -f "$log" ] || fail "no log of array task $k"
    grep -q "experiment smoke: $(wc -l <"$tmp/expected.$k") runs, 0 finished" "$log" ||
        fail "array task $k did not run shard $k/$shards: $(head -c 300 "$log")"
    grep -q "experiment smoke complete" "$log" || fail "array task $k did not complete"
done
[ "$(grep -c ArrayTaskId= "$tmp/jobs")" -eq "$shards" ] || fail "scontrol lists other tasks"

# The shared directory: one line per run of the spec, every key once, both shards' runs.
results=$out/results.jsonl
[ -f "$results" ] || fail "no $results"
lines=$(wc -l <"$results")
[ "$lines" -eq "$expected_runs" ] ||
    fail "results.jsonl has $lines lines; the spec lists $expected_runs runs"
key_lines=$(grep -c '"experiment_key": *"[^"]*"' "$results" || true)
[ "$key_lines" -eq "$lines" ] || fail "$((lines - key_lines)) results lines lack experiment_key"
grep -o '"experiment_key": *"[^"]*"' "$results" | sed 's/^"experiment_key": *"//; s/"$//' |
    sort >"$tmp/got"
dups=$(uniq -d "$tmp/got")
[ -z "$dups" ] || fail "keys written more than once: $dups"
cmp -s "$tmp/got" "$tmp/expected" ||
    fail "the keys differ from the spec's runs: $(diff "$tmp/expected" "$tmp/got" | grep '^[<>]' | tr '\n' ' ')"
for k in $(seq "$shards"); do
    missing=$(comm -23 "$tmp/expected.$k" "$tmp/got")
    [ -z "$missing" ] || fail "runs of shard $k/$shards missing: $missing"
done
[ -f "$out/experiment.json" ] || fail "no experiment.json"
partial=$(find "$out/runs" -maxdepth 1 -name '*.partial')
[ -z "$partial" ] || fail "unfinished run directories left: $partial"

say "passed: $shards array tasks, $lines runs of $spec, each key once, every shard's runs present"
