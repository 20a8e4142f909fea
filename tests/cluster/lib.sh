# shellcheck shell=bash
# Shared code for tests/cluster/{up,down,daemon}. Sourced, not executed.
#
# Everything the scripts create lives in three places:
#   $STATE  (/var/lib/sweep-cluster)  pid files (run/), slurmctld state, slurmd spool,
#                                     rendered configs, lock file
#   $LOGS   (/var/log/sweep-cluster)  one log per daemon, plus *.start.log (stderr of
#                                     the start command) and apt.log
#   /etc/slurm/slurm.conf, /etc/slurm/slurmdbd.conf   rendered from the *.in templates
# MariaDB keeps its data in the distribution's datadir (/var/lib/mysql), which is
# reused across down/up.

CLUSTER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

STATE=${SWEEP_CLUSTER_STATE:-/var/lib/sweep-cluster}
LOGS=${SWEEP_CLUSTER_LOGS:-/var/log/sweep-cluster}
RUN=$STATE/run
WAIT=${SWEEP_CLUSTER_TIMEOUT:-60}          # seconds, per wait

CLUSTER_NAME=sweeptest
ACCOUNT=sweep
HOST=$(hostname -s)
MAX_ARRAY=${SWEEP_CLUSTER_MAX_ARRAY:-50}
NODE_CPUS=${SWEEP_CLUSTER_CPUS:-16}
NODE_MEM=${SWEEP_CLUSTER_REAL_MEMORY:-8000}
# Slurm's own default; only bench/ raises it (bench/big_sweep.sh).
MAX_JOBS=${SWEEP_CLUSTER_MAX_JOBS:-10000}
# Seconds a daemon waits for an answer; bench/big_sweep.sh raises it (under
# its load slurmctld gave up on slurmd's launch replies and held the tasks).
MSG_TIMEOUT=${SWEEP_CLUSTER_MSG_TIMEOUT:-5}
for _v in SWEEP_CLUSTER_MAX_ARRAY SWEEP_CLUSTER_MAX_JOBS SWEEP_CLUSTER_MSG_TIMEOUT SWEEP_CLUSTER_CPUS SWEEP_CLUSTER_REAL_MEMORY SWEEP_CLUSTER_TIMEOUT; do
    if [[ -n ${!_v:-} && ! ${!_v} =~ ^[1-9][0-9]*$ ]]; then
        echo "cluster: error: $_v must be a positive integer, not '${!_v}'" >&2
        exit 2
    fi
done
unset _v

DB_NAME=slurm_acct_db
DB_USER=slurm
DB_PASS=${SWEEP_CLUSTER_DB_PASS:-sweep-cluster-db}
MYSQL_DATADIR=${SWEEP_CLUSTER_MYSQL_DATADIR:-/var/lib/mysql}
MYSQL_SOCKET=/run/mysqld/mysqld.sock

PACKAGES=(slurm-wlm slurmdbd libslurm-dev munge mariadb-server)

# Which Slurm runs the cluster. Debian's (22.05, /usr) unless SWEEP_SLURM_PREFIX
# names a release built by tests/cluster/build-slurm (/opt/slurm/26.05.3). Only
# one release runs at a time, on the same ports: `up` of another release stops
# the running one's slurmd, slurmctld and slurmdbd first (munge and MariaDB
# serve every release). `daemon` and `down` without SWEEP_SLURM_PREFIX act on
# the release that is running ($STATE/release). Each release keeps its own
# config (its prefix's etc/, where its commands and libslurm look by default),
# slurmctld state, slurmd spool, logs and accounting database, so switching
# back and forth never makes a release read another's state.
SLURM_PREFIX=${SWEEP_SLURM_PREFIX:-}
if [[ -z $SLURM_PREFIX && ${CLUSTER_FOLLOWS_RUNNING:-0} == 1 && -r $STATE/release ]]; then
    read -r _r <"$STATE/release" || true
    [[ ${_r:-debian} == debian ]] || SLURM_PREFIX=$_r
    unset _r
fi
SLURM_PREFIX=${SLURM_PREFIX%/}
if [[ -n $SLURM_PREFIX ]]; then
    if [[ ! -x $SLURM_PREFIX/sbin/slurmctld ]]; then
        echo "cluster: error: no Slurm built in '$SLURM_PREFIX' (tests/cluster/build-slurm VERSION builds one)" >&2
        exit 1
    fi
    RELEASE_TAG=$(basename "$SLURM_PREFIX")
    SLURM_VERSION=$("$SLURM_PREFIX/sbin/slurmctld" -V 2>/dev/null | awk '{ print $2 }' || true)
    SLURM_CONF=$SLURM_PREFIX/etc/slurm.conf
    SLURMDBD_CONF=$SLURM_PREFIX/etc/slurmdbd.conf
    SLURM_STATE=$STATE/slurm-$RELEASE_TAG
    SLURM_LOGS=$LOGS/slurm-$RELEASE_TAG
    DB_NAME=slurm_acct_db_${RELEASE_TAG//[^0-9A-Za-z]/_}
    RELEASE_LABEL="Slurm ${SLURM_VERSION:-?} built in $SLURM_PREFIX"
    export PATH=$SLURM_PREFIX/bin:$SLURM_PREFIX/sbin:$PATH
else
    RELEASE_TAG=debian
    SLURM_VERSION=$(dpkg-query -W -f='${Version}' slurm-wlm 2>/dev/null | sed 's/-.*//' || true)
    SLURM_CONF=/etc/slurm/slurm.conf
    SLURMDBD_CONF=/etc/slurm/slurmdbd.conf
    SLURM_STATE=$STATE
    SLURM_LOGS=$LOGS
    RELEASE_LABEL="Debian's Slurm ${SLURM_VERSION:-22.05}"
fi
# The config keys each release expects (tests/cluster/RELEASES.md): 22.05
# sends the job's --signal at preemption only with a SlurmctldParameters
# flag; 23.02 on read PreemptParameters=send_user_signal (and still accept the
# old flag).
case ${SLURM_VERSION:-22.05} in
    2[0-2].*) PREEMPT_SIGNAL_LINE=SlurmctldParameters=preempt_send_user_signal ;;
    *)        PREEMPT_SIGNAL_LINE=PreemptParameters=send_user_signal ;;
esac

# The scripts only ever talk to the cluster they configure.
export SLURM_CONF

say()  { echo "cluster: $*"; }
warn() { echo "cluster: warning: $*" >&2; }

# die MESSAGE [LOG...]: print the error and the tail of each log, exit 1.
die() {
    local msg=$1 log
    shift
    echo "cluster: error: $msg" >&2
    for log in "$@"; do
        [[ -s $log ]] || continue
        echo "cluster: ---- last lines of $log ----" >&2
        tail -n 25 "$log" | sed 's/^/cluster: | /' >&2
    done
    exit 1
}

require_root() {
    [[ $(id -u) -eq 0 ]] || die "must run as root (the test cluster runs its daemons as root)"
}

# Serialise up/down/daemon: parallel test jobs may call them at the same time.
# Daemons are started with 9>&- so that they do not inherit (and hold) the lock.
# Descriptors the caller left open are closed first: a wrapper's lock (flock
# -x FILE CMD gives CMD the lock on fd 3) inherited by munged, mariadbd or
# slurmdbd stays held as long as they run, and every later test waits on it.
take_lock() {
    local fd n
    for fd in /proc/$$/fd/*; do
        n=${fd##*/}
        [[ $n =~ ^[0-9]+$ ]] && ((n > 2 && n != 9 && n != 255)) || continue
        eval "exec $n>&-" 2>/dev/null || true
    done
    mkdir -p "$STATE"
    exec 9>"$STATE/lock"
    flock -w 300 9 || die "another tests/cluster script holds $STATE/lock for more than 300 s"
}

# ---------------------------------------------------------------- daemons table

daemon_pidfile() {
    case $1 in
        munge)     echo "$RUN/munge/munged.pid" ;;
        mariadb)   echo "$RUN/mysql/mariadbd.pid" ;;
        slurmdbd)  echo "$RUN/slurmdbd.pid" ;;
        slurmctld) echo "$RUN/slurmctld.pid" ;;
        slurmd)    echo "$RUN/slurmd.pid" ;;
        *) die "unknown daemon '$1'" ;;
    esac
}

daemon_comm() {
    case $1 in
        munge)   echo munged ;;
        mariadb) echo mariadbd ;;
        *)       echo "$1" ;;
    esac
}

daemon_log() {
    case $1 in
        munge)   echo "$LOGS/munged.log" ;;
        mariadb) echo "$LOGS/mariadb.log" ;;
        *)       echo "$SLURM_LOGS/$1.log" ;;
    esac
}

# daemon_pid NAME: print the pid of the daemon WE started (pid file in $RUN and a live
# process with the right name), or fail.
daemon_pid() {
    local pidfile pid
    pidfile=$(daemon_pidfile "$1")
    [[ -r $pidfile ]] || return 1
    read -r pid <"$pidfile" 2>/dev/null || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    alive "$pid" "$(daemon_comm "$1")" || return 1
    echo "$pid"
}

is_running() { daemon_pid "$1" >/dev/null; }

# port_listening PORT: a TCP socket in LISTEN state on PORT (from /proc, no tools needed).
port_listening() {
    local hex
    hex=$(printf ':%04X' "$1")
    awk -v p="$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# ---------------------------------------------------------------- health checks

munge_ok()     { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }
mariadb_ok()   { mariadb --connect-timeout=2 -S "$MYSQL_SOCKET" -e 'select 1' >/dev/null 2>&1; }
slurmdbd_ok()  { is_running slurmdbd && port_listening 6819; }
slurmctld_ok() { [[ $(timeout 10 scontrol ping 2>/dev/null) == *"is UP"* ]]; }

# node_state: the node's long state as sinfo prints it (idle, mixed, down*, ...).
node_state() {
    timeout 10 sinfo -h -N -n "$HOST" -o %T 2>/dev/null | awk 'NR == 1 { print }'
}

node_ready() {
    local st
    st=$(node_state) || return 1
    [[ $st =~ ^(idle|mixed|allocated|completing|planned|reserved)$ ]]
}

slurmd_ok() { is_running slurmd && port_listening 6818; }

# ---------------------------------------------------------------- waiting

# wait_until DESCRIPTION TIMEOUT DAEMON LOG... -- COMMAND...
# Poll COMMAND until it succeeds. Fail early if DAEMON (unless "-") stops running, and
# after TIMEOUT seconds; either way print the tail of each LOG.
wait_until() {
    local desc=$1 timeout=$2 daemon=$3 logs=() deadline
    shift 3
    while [[ $1 != -- ]]; do logs+=("$1"); shift; done
    shift
    deadline=$((SECONDS + timeout))
    until "$@"; do
        if [[ $daemon != - ]] && ! is_running "$daemon"; then
            sleep 0.5   # let it finish writing its log
            die "$daemon exited while waiting until $desc" "${logs[@]}"
        fi
        ((SECONDS < deadline)) || die "timed out after ${timeout}s waiting until $desc" "${logs[@]}"
        sleep 0.25
    done
}

# alive PID COMM: PID is a live (not zombie) process named COMM.
alive() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    [[ $stat == "$1 ($2) "* && $stat != "$1 ($2) Z"* ]]
}

# stop_daemon NAME: SIGTERM the daemon we started and wait (bounded) until it is gone;
# SIGKILL if it does not stop in time.
stop_daemon() {
    local name=$1 pid deadline t0=$SECONDS
    if ! pid=$(daemon_pid "$name"); then
        rm -f "$(daemon_pidfile "$name")"
        return 1
    fi
    say "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    deadline=$((SECONDS + WAIT))
    while alive "$pid" "$(daemon_comm "$name")"; do
        if ((SECONDS >= deadline)); then
            warn "$name (pid $pid) ignored SIGTERM for ${WAIT}s, sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            deadline=$((SECONDS + 10))
            while alive "$pid" "$(daemon_comm "$name")"; do
                ((SECONDS < deadline)) || die "$name (pid $pid) survives SIGKILL" "$(daemon_log "$name")"
                sleep 0.1
            done
            break
        fi
        sleep 0.1
    done
    rm -f "$(daemon_pidfile "$name")"
    say "$name stopped after $((SECONDS - t0))s"
    return 0
}

# ---------------------------------------------------------------- setup

ensure_packages() {
    local p missing=() rc=0 policy_added=0
    for p in "${PACKAGES[@]}"; do
        [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || missing+=("$p")
    done
    ((${#missing[@]})) || return 0
    command -v apt-get >/dev/null || die "packages missing (${missing[*]}) and no apt-get to install them"
    mkdir -p "$LOGS"
    say "installing ${missing[*]} (log: $LOGS/apt.log)"
    export DEBIAN_FRONTEND=noninteractive
    # No init system: keep the packages' maintainer scripts from trying to start services.
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        policy_added=1
    fi
    local apt=(apt-get -y -q -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confdef
               -o Dpkg::Options::=--force-confold)
    if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
        "${apt[@]}" update >>"$LOGS/apt.log" 2>&1 </dev/null || rc=$?
    fi
    if ((rc == 0)); then
        if ! "${apt[@]}" install "${missing[@]}" >>"$LOGS/apt.log" 2>&1 </dev/null; then
            # Stale package lists: update once and retry.
            rc=0
            "${apt[@]}" update >>"$LOGS/apt.log" 2>&1 </dev/null || rc=$?
            ((rc)) || "${apt[@]}" install "${missing[@]}" >>"$LOGS/apt.log" 2>&1 </dev/null || rc=$?
        fi
    fi
    if ((policy_added)); then rm -f /usr/sbin/policy-rc.d; fi
    ((rc == 0)) || die "apt-get failed to install ${missing[*]}" "$LOGS/apt.log"
}

setup_dirs() {
    mkdir -p "$STATE" "$RUN" "$SLURM_STATE/slurmctld" "$SLURM_STATE/slurmd" "$SLURM_STATE/rendered" \
        "$LOGS" "$SLURM_LOGS" "$(dirname "$SLURM_CONF")"
    chmod 755 "$STATE" "$RUN" "$LOGS" "$SLURM_LOGS"
    install -d -o munge -g munge -m 755 /run/munge "$RUN/munge"
    install -d -o mysql -g mysql -m 755 /run/mysqld "$RUN/mysql"
    # Files the non-root daemons open themselves.
    [[ -e $LOGS/munged.log ]] || install -o munge -g munge -m 640 /dev/null "$LOGS/munged.log"
    [[ -e $LOGS/mariadb.log ]] || install -o mysql -g mysql -m 640 /dev/null "$LOGS/mariadb.log"
}

render() {  # render TEMPLATE OUTPUT
    sed -e "s|@HOST@|$HOST|g" \
        -e "s|@CLUSTER_NAME@|$CLUSTER_NAME|g" \
        -e "s|@STATE@|$SLURM_STATE|g" \
        -e "s|@RUN@|$RUN|g" \
        -e "s|@LOGS@|$SLURM_LOGS|g" \
        -e "s|@RELEASE@|$RELEASE_LABEL|g" \
        -e "s|@PREEMPT_SIGNAL_LINE@|$PREEMPT_SIGNAL_LINE|g" \
        -e "s|@MAX_ARRAY@|$MAX_ARRAY|g" \
        -e "s|@MAX_JOBS@|$MAX_JOBS|g" \
        -e "s|@MSG_TIMEOUT@|$MSG_TIMEOUT|g" \
        -e "s|@NODE_CPUS@|$NODE_CPUS|g" \
        -e "s|@NODE_MEM@|$NODE_MEM|g" \
        -e "s|@DB_NAME@|$DB_NAME|g" \
        -e "s|@DB_USER@|$DB_USER|g" \
        -e "s|@DB_PASS@|$DB_PASS|g" \
        "$1" >"$2"
    if grep -n '@[A-Z_]*@' "$2" >&2; then die "unrendered placeholder in $2"; fi
}

# ---------------------------------------------------------------- starting daemons

# wait_pidfile NAME LOG...: a daemon that forks writes its pid file a moment after the
# start command returns; wait (bounded) for it.
wait_pidfile() {
    local name=$1 deadline=$((SECONDS + 15))
    shift
    until is_running "$name"; do
        ((SECONDS < deadline)) || die "$name did not start (no live pid in $(daemon_pidfile "$name"))" "$@"
        sleep 0.1
    done
}

start_munge() {
    if munge_ok; then
        is_running munge || say "munge: using the munged already running (not started by up; down leaves it)"
        return 0
    fi
    if [[ ! -s /etc/munge/munge.key ]]; then
        say "munge: creating /etc/munge/munge.key"
        if command -v mungekey >/dev/null; then
            mungekey --create --keyfile=/etc/munge/munge.key
        else
            dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
        fi
        chown munge:munge /etc/munge/munge.key
        chmod 400 /etc/munge/munge.key
    fi
    say "starting munged"
    runuser -u munge -- /usr/sbin/munged --pid-file="$RUN/munge/munged.pid" \
        --log-file="$LOGS/munged.log" </dev/null >>"$LOGS/munged.start.log" 2>&1 9>&- ||
        die "munged failed to start" "$LOGS/munged.start.log" "$LOGS/munged.log"
    wait_pidfile munge "$LOGS/munged.start.log" "$LOGS/munged.log"
    wait_until "munge -n | unmunge works" "$WAIT" munge "$LOGS/munged.start.log" "$LOGS/munged.log" \
        -- munge_ok
}

start_mariadb() {
    if mariadb_ok; then
        is_running mariadb || say "mariadb: using the MariaDB already running (not started by up; down leaves it)"
        return 0
    fi
    if [[ ! -d $MYSQL_DATADIR/mysql ]]; then
        say "mariadb: initialising $MYSQL_DATADIR"
        mariadb-install-db --user=mysql --datadir="$MYSQL_DATADIR" >>"$LOGS/mariadb.start.log" 2>&1 </dev/null ||
            die "mariadb-install-db failed" "$LOGS/mariadb.start.log"
    fi
    say "starting mariadbd"
    # Run mariadbd directly (not mariadbd-safe): one process, its own pid file in $RUN.
    # The innodb values are the ones slurmdbd asks for in its log.
    setsid /usr/sbin/mariadbd --user=mysql --datadir="$MYSQL_DATADIR" --socket="$MYSQL_SOCKET" \
        --pid-file="$RUN/mysql/mariadbd.pid" --log-error="$LOGS/mariadb.log" \
        --bind-address=127.0.0.1 --port=3306 \
        --innodb-buffer-pool-size=1024M --innodb-lock-wait-timeout=900 \
        </dev/null >>"$LOGS/mariadb.start.log" 2>&1 9>&- &
    wait_pidfile mariadb "$LOGS/mariadb.start.log" "$LOGS/mariadb.log"
    wait_until "MariaDB answers" "$WAIT" mariadb "$LOGS/mariadb.start.log" "$LOGS/mariadb.log" -- mariadb_ok
}

ensure_db_user() {
    mariadb -S "$MYSQL_SOCKET" >>"$LOGS/mariadb.start.log" 2>&1 <<SQL ||
CREATE DATABASE IF NOT EXISTS \`$DB_NAME\`;
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASS';
ALTER USER '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASS';
GRANT ALL ON \`$DB_NAME\`.* TO '$DB_USER'@'localhost';
SQL
        die "could not create the slurmdbd database user" "$LOGS/mariadb.start.log"
}

start_slurmdbd() {
    if slurmdbd_ok; then return 0; fi
    if is_running slurmdbd; then
        say "slurmdbd is running but not listening yet"
    else
        say "starting slurmdbd"
        slurmdbd </dev/null >>"$SLURM_LOGS/slurmdbd.start.log" 2>&1 9>&- ||
            die "slurmdbd failed to start" "$SLURM_LOGS/slurmdbd.start.log" "$SLURM_LOGS/slurmdbd.log"
        wait_pidfile slurmdbd "$SLURM_LOGS/slurmdbd.start.log" "$SLURM_LOGS/slurmdbd.log"
    fi
    wait_until "slurmdbd listens on port 6819" "$WAIT" slurmdbd \
        "$SLURM_LOGS/slurmdbd.start.log" "$SLURM_LOGS/slurmdbd.log" -- slurmdbd_ok
}

# The cluster, an account and user root must exist in accounting (sacctmgr -i).
ensure_accounting() {
    local log=$SLURM_LOGS/sacctmgr.log
    sacct_has() { [[ -n $(timeout 20 sacctmgr -n -P "$@" 2>>"$log") ]]; }
    sacctmgr_do() {
        timeout 20 sacctmgr -i "$@" >>"$log" 2>&1 || die "sacctmgr $* failed" "$log" "$SLURM_LOGS/slurmdbd.log"
    }
    sacct_has show cluster "$CLUSTER_NAME" format=cluster ||
        sacctmgr_do add cluster "$CLUSTER_NAME"
    sacct_has show account "$ACCOUNT" format=account ||
        sacctmgr_do add account "$ACCOUNT" Cluster="$CLUSTER_NAME" Description=sweep-tests Organization=sweep
    sacct_has show assoc where cluster="$CLUSTER_NAME" account="$ACCOUNT" user=root format=user ||
        sacctmgr_do add user root Account="$ACCOUNT" Cluster="$CLUSTER_NAME" DefaultAccount="$ACCOUNT"
    # A QOS with a per-user submit limit, as real sites have: sweeps bigger than it must
    # roll. `normal` (the default, no limits) stays root's default QOS.
    sacct_has show qos small format=name ||
        sacctmgr_do add qos small MaxSubmitJobsPerUser=100
    [[ $(timeout 20 sacctmgr -n -P show qos small format=maxsubmitpu 2>>"$log") == 100 ]] ||
        sacctmgr_do modify qos small set MaxSubmitJobsPerUser=100
    [[ $(timeout 20 sacctmgr -n -P show assoc where cluster="$CLUSTER_NAME" account="$ACCOUNT" \
        user=root format=qos 2>>"$log") == *small* ]] ||
        sacctmgr_do modify user root where cluster="$CLUSTER_NAME" set qos=normal,small defaultqos=normal
}

start_slurmctld() {
    if is_running slurmctld; then
        slurmctld_ok && return 0
        say "slurmctld is running but does not answer yet"
    else
        say "starting slurmctld"
        slurmctld </dev/null >>"$SLURM_LOGS/slurmctld.start.log" 2>&1 9>&- ||
            die "slurmctld failed to start" "$SLURM_LOGS/slurmctld.start.log" "$SLURM_LOGS/slurmctld.log"
        wait_pidfile slurmctld "$SLURM_LOGS/slurmctld.start.log" "$SLURM_LOGS/slurmctld.log"
    fi
    wait_until "slurmctld answers (scontrol ping)" "$WAIT" slurmctld \
        "$SLURM_LOGS/slurmctld.start.log" "$SLURM_LOGS/slurmctld.log" -- slurmctld_ok
}

start_slurmd() {
    if ! is_running slurmd; then
        say "starting slurmd"
        slurmd </dev/null >>"$SLURM_LOGS/slurmd.start.log" 2>&1 9>&- ||
            die "slurmd failed to start" "$SLURM_LOGS/slurmd.start.log" "$SLURM_LOGS/slurmd.log"
        wait_pidfile slurmd "$SLURM_LOGS/slurmd.start.log" "$SLURM_LOGS/slurmd.log"
    fi
    wait_until "slurmd listens on port 6818" "$WAIT" slurmd \
        "$SLURM_LOGS/slurmd.start.log" "$SLURM_LOGS/slurmd.log" -- slurmd_ok
}

# Wait until the node is usable; resume it once if an earlier run left it drained/down.
wait_node_ready() {
    local deadline=$((SECONDS + WAIT)) st resumed=0 since=$SECONDS
    until node_ready; do
        is_running slurmd || die "slurmd exited while waiting for node $HOST" "$SLURM_LOGS/slurmd.log"
        st=$(node_state || true)
        if ((!resumed)) && ((SECONDS - since >= 2)) && [[ $st =~ ^(drained|down|drain|draining)$ ]]; then
            say "node $HOST is $st ($(timeout 10 sinfo -h -n "$HOST" -o %E | awk 'NR == 1')); resuming it"
            timeout 10 scontrol update nodename="$HOST" state=resume >/dev/null 2>&1 || true
            resumed=1
        fi
        ((SECONDS < deadline)) ||
            die "timed out after ${WAIT}s waiting for node $HOST to be idle (state: ${st:-?})" \
                "$SLURM_LOGS/slurmd.log" "$SLURM_LOGS/slurmctld.log"
        sleep 0.25
    done
}

# A real job, end to end: slurmctld -> slurmd -> slurmdbd -> sacct.
# --priority=TOP: start before jobs other tests left queued (no preemption: default partition).
check_accounting_e2e() {
    local jid st deadline
    jid=$(timeout "$WAIT" srun -J sweep-cluster-check -n1 -c1 --mem=10M -t 1 --priority=TOP --quiet \
          printenv SLURM_JOB_ID </dev/null 9>&- 2>>"$SLURM_LOGS/check.log") ||
        die "test job (srun) did not run within ${WAIT}s" "$SLURM_LOGS/check.log" "$SLURM_LOGS/slurmctld.log" "$SLURM_LOGS/slurmd.log"
    [[ $jid =~ ^[0-9]+$ ]] || die "test job printed '$jid' instead of its job id" "$SLURM_LOGS/check.log"
    deadline=$((SECONDS + WAIT))
    until st=$(timeout 10 sacct -n -X -P -j "$jid" -o State 2>>"$SLURM_LOGS/check.log") && [[ $st == COMPLETED ]]; do
        ((SECONDS < deadline)) ||
            die "test job $jid not COMPLETED in sacct after ${WAIT}s (sacct says '${st:-nothing}')" \
                "$SLURM_LOGS/check.log" "$SLURM_LOGS/slurmdbd.log" "$SLURM_LOGS/slurmctld.log"
        sleep 0.25
    done
    say "accounting works: test job $jid is COMPLETED in sacct"
}
