#include "helpers.h"

#include <errno.h>
#include <sys/stat.h>

#include "cfg.h"

/* Every row: a sweep file that is refused, and the one message it gets. */
struct bad_case {
	const char *yaml;
	const char *msg; /* without the "error: " prefix */
};

/* Two lines that every otherwise valid file starts with. */
#define BASE "name: x\ncommand: run\n"

static const struct bad_case structure_errors[] = {
    {"", "t.yaml:1:1: the sweep file is empty: it needs at least 'name' and 'command'"},
    {"# just a comment\n",
     "t.yaml:1:1: the sweep file is empty: it needs at least 'name' and 'command'"},
    {"---\n", "t.yaml:2:1: the sweep file is empty: it needs at least 'name' and 'command'"},
    {"- a\n- b\n",
     "t.yaml:1:1: the top level must be a mapping (name: ..., command: ...), found a list"},
    {"just text\n",
     "t.yaml:1:1: the top level must be a mapping (name: ..., command: ...), found a scalar"},
    {BASE "---\nname: y\n", "t.yaml:3:1: only one YAML document is allowed in a sweep file"},
    {"name: &n x\ncommand: run\n",
     "t.yaml:1:7: YAML anchors and aliases are not supported: write the values out"},
    {"name: x\ncommand: *c\n",
     "t.yaml:2:10: YAML anchors and aliases are not supported: write the values out"},
    {BASE "grid: &g {a: [1]}\n",
     "t.yaml:3:7: YAML anchors and aliases are not supported: write the values out"},
    {BASE "cases:\n  - &c {a: 1}\n  - <<: *c\n",
     "t.yaml:4:5: YAML anchors and aliases are not supported: write the values out"},
    {"name: !!int 5\ncommand: run\n", "t.yaml:1:7: unsupported YAML tag 'tag:yaml.org,2002:int'"},
    {BASE "grid: !custom {a: [1]}\n", "t.yaml:3:7: unsupported YAML tag '!custom'"},
    {"name: x\ncommand: \"a\\0b\"\n", "t.yaml:2:10: NUL bytes are not allowed"},
    {BASE "grid: {lr: [\"\\x00\"]}\n", "t.yaml:3:13: NUL bytes are not allowed"},
    {BASE "? [a]\n: b\n", "t.yaml:3:3: mapping keys must be scalars, not a list"},
    {BASE "\"\": y\n", "t.yaml:3:1: empty key"},
    {BASE "~: y\n", "t.yaml:3:1: empty key"},
    {BASE "slurm: {\"\": 1}\n", "t.yaml:3:9: empty key in 'slurm'"},
};

static const struct bad_case key_errors[] = {
    {BASE "gird: {a: [1]}\n", "t.yaml:3:1: unknown key 'gird'; did you mean 'grid'?"},
    {BASE "Name: y\n", "t.yaml:3:1: unknown key 'Name'; did you mean 'name'?"},
    {BASE "frobnicate: 1\n", "t.yaml:3:1: unknown key 'frobnicate'"},
    {BASE "seed: 3\n", "t.yaml:3:1: unknown key 'seed'; did you mean 'seeds'?"},
    {BASE "slurm:\n  partiton: gpu\n",
     "t.yaml:4:3: unknown key 'partiton' in 'slurm'; did you mean 'partition'?"},
    {BASE "slurm:\n  cpus-per-task: 2\n",
     "t.yaml:4:3: unknown key 'cpus-per-task' in 'slurm'; did you mean 'cpus_per_task'?"},
    {BASE "slurm:\n  frobnicate: 2\n", "t.yaml:4:3: unknown key 'frobnicate' in 'slurm'"},
    {BASE "slurm:\n  memory: 4G\n",
     "t.yaml:4:3: unknown key 'memory' in 'slurm'; did you mean 'mem'?"},
    {BASE "name: z\n", "t.yaml:3:1: duplicate key 'name' (first at line 1)"},
    {BASE "grid:\n  lr: [1]\n  lr: [2]\n",
     "t.yaml:5:3: duplicate key 'lr' in 'grid' (first at line 4)"},
    {BASE "zip:\n  lr: [1]\n  lr: [2]\n",
     "t.yaml:5:3: duplicate key 'lr' in 'zip' (first at line 4)"},
    {BASE "slurm:\n  mem: 1G\n  mem: 2G\n",
     "t.yaml:5:3: duplicate key 'mem' in 'slurm' (first at line 4)"},
    {BASE "env:\n  A: 1\n  A: 2\n", "t.yaml:5:3: duplicate key 'A' in 'env' (first at line 4)"},
    {BASE "cases:\n  - {lr: 1, lr: 2}\n",
     "t.yaml:4:13: duplicate key 'lr' in case 1 (first at line 4)"},
    {BASE "\"a\\nb\": 1\n", "t.yaml:3:1: unknown key 'a\\nb'"},
    {BASE "env:\n  A: 1\n  B: 2\n  B: 3\n  A: 4\n",
     "t.yaml:6:3: duplicate key 'B' in 'env' (first at line 5)"},
    {"command: run\n", "t.yaml:1:1: missing required key 'name'"},
    {"name: x\n", "t.yaml:1:1: missing required key 'command'"},
    {"\n\nname: x\n", "t.yaml:3:1: missing required key 'command'"},
};

static const struct bad_case value_errors[] = {
    /* name */
    {"name: [a]\ncommand: run\n", "t.yaml:1:7: 'name': expected a scalar, found a list"},
    {"name: ~\ncommand: run\n", "t.yaml:1:7: 'name': expected a scalar, found an empty value"},
    {"name:\ncommand: run\n", "t.yaml:1:6: 'name': expected a scalar, found an empty value"},
    {"name: a b\ncommand: run\n",
     "t.yaml:1:7: invalid name 'a b': use letters, digits, '.', '_' and '-', starting with a "
     "letter, digit or '_'"},
    {"name: \"\"\ncommand: run\n",
     "t.yaml:1:7: invalid name '': use letters, digits, '.', '_' and '-', starting with a "
     "letter, digit or '_'"},
    {"name: .hidden\ncommand: run\n",
     "t.yaml:1:7: invalid name '.hidden': use letters, digits, '.', '_' and '-', starting with "
     "a letter, digit or '_'"},
    {"name: -x\ncommand: run\n",
     "t.yaml:1:7: invalid name '-x': use letters, digits, '.', '_' and '-', starting with a "
     "letter, digit or '_'"},
    {"name: run%x\ncommand: run\n",
     "t.yaml:1:7: invalid name 'run%x': use letters, digits, '.', '_' and '-', starting with "
     "a letter, digit or '_'"},
    {"name: a/b\ncommand: run\n",
     "t.yaml:1:7: invalid name 'a/b': use letters, digits, '.', '_' and '-', starting with a "
     "letter, digit or '_'"},
    {"name: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\ncommand: run\n",
     "t.yaml:1:7: 'name' is longer than 100 characters"},
    /* command */
    {"name: x\ncommand: {a: 1}\n", "t.yaml:2:10: 'command': expected a scalar, found a mapping"},
    {"name: x\ncommand:\n", "t.yaml:2:9: 'command': expected a scalar, found an empty value"},
    {"name: x\ncommand: \"  \"\n", "t.yaml:2:10: 'command' is empty"},
    {"name: x\ncommand: |\n\n", "t.yaml:2:10: 'command' is empty"},
    {"name: x\ncommand: run {lrr}\ngrid: {lr: [1]}\n",
     "t.yaml:2:10: 'command': unknown placeholder '{lrr}'; did you mean '{lr}'?"},
    {"name: x\ncommand: run {sed}\n",
     "t.yaml:2:10: 'command': unknown placeholder '{sed}'; did you mean '{seed}'?"},
    {"name: x\ncommand: run {frobnicate}\n",
     "t.yaml:2:10: 'command': unknown placeholder '{frobnicate}': not a parameter, 'seed', "
     "'index', 'task' or 'sweep' (write {{ and }} for literal braces)"},
    {"name: x\ncommand: |\n  a {lr}\n  b {wd}\ngrid: {lr: [1]}\n",
     "t.yaml:2:10: 'command': unknown placeholder '{wd}': not a parameter, 'seed', "
     "'index', 'task' or 'sweep' "
     "(write {{ and }} for literal braces)"},
    {"name: x\ncommand: run {b}\ncases: [{a: 1}]\n",
     "t.yaml:2:10: 'command': unknown placeholder '{b}': not a parameter, 'seed', "
     "'index', 'task' or 'sweep' "
     "(write {{ and }} for literal braces)"},
    {"name: x\ncommand: run {alpah}\ncases: [{alpha: 1}]\n",
     "t.yaml:2:10: 'command': unknown placeholder '{alpah}'; did you mean '{alpha}'?"},
    /* seeds */
    {BASE "seeds: 0\n",
     "t.yaml:3:8: 'seeds': expected a count from 1 to 1000000 or a list of integers, found "
     "'0'"},
    {BASE "seeds: -1\n",
     "t.yaml:3:8: 'seeds': expected a count from 1 to 1000000 or a list of integers, found "
     "'-1'"},
    {BASE "seeds: five\n",
     "t.yaml:3:8: 'seeds': expected a count from 1 to 1000000 or a list of integers, found "
     "'five'"},
    {BASE "seeds: 1000001\n",
     "t.yaml:3:8: 'seeds': expected a count from 1 to 1000000 or a list of integers, found "
     "'1000001'"},
    {BASE "seeds: ~\n",
     "t.yaml:3:8: 'seeds': expected a count or a list of integers, found an empty value"},
    {BASE "seeds: {a: 1}\n",
     "t.yaml:3:8: 'seeds': expected a count or a list of integers, found a mapping"},
    {BASE "seeds: []\n", "t.yaml:3:8: 'seeds' is an empty list"},
    {BASE "seeds: [1, x]\n", "t.yaml:3:12: 'seeds': expected an integer, found 'x'"},
    {BASE "seeds: [1, 2.0]\n", "t.yaml:3:12: 'seeds': expected an integer, found '2.0'"},
    {BASE "seeds: [1, [2]]\n", "t.yaml:3:12: 'seeds': expected an integer, found a list"},
    {BASE "seeds: [1, ~]\n", "t.yaml:3:12: 'seeds': expected an integer, found an empty value"},
    {BASE "seeds: [9223372036854775808]\n",
     "t.yaml:3:9: 'seeds': expected an integer, found '9223372036854775808'"},
    {BASE "seeds:\n  - 1\n  - 2\n  - 1\n",
     "t.yaml:6:5: 'seeds': seed 1 is listed twice (first at line 4)"},
    {BASE "seeds:\n  - 3\n  - 1\n  - 01\n  - 3\n",
     "t.yaml:6:5: 'seeds': seed 01 is listed twice (first at line 5)"},
    /* grid */
    {BASE "grid: [1]\n", "t.yaml:3:7: 'grid': expected a mapping, found a list"},
    {BASE "grid:\n", "t.yaml:3:6: 'grid': expected a mapping, found an empty value"},
    {BASE "grid: {}\n", "t.yaml:3:7: 'grid' is empty: give it parameters or leave it out"},
    {BASE "grid: {lr: 0.1}\n", "t.yaml:3:12: 'grid.lr': expected a list, found a scalar"},
    {BASE "grid: {lr: {a: 1}}\n", "t.yaml:3:12: 'grid.lr': expected a list, found a mapping"},
    {BASE "grid:\n  lr:\n", "t.yaml:4:6: 'grid.lr': expected a list, found an empty value"},
    {BASE "grid: {lr: []}\n", "t.yaml:3:12: 'grid.lr' is an empty list"},
    {BASE "grid: {lr: [[1]]}\n",
     "t.yaml:3:13: 'grid.lr': expected a scalar in the list, found a list"},
    {BASE "grid: {lr: [1, ~]}\n",
     "t.yaml:3:16: 'grid.lr': empty value in the list (write '' for empty text)"},
    {BASE "grid:\n  lr: [0.1,\n       0.1]\n",
     "t.yaml:5:8: 'grid.lr' lists '0.1' twice (first at line 4)"},
    {BASE "grid: {seed: [1]}\n",
     "t.yaml:3:8: 'seed' in 'grid': 'seed', 'index', 'task' and 'sweep' are built-in "
     "placeholders, not "
     "parameter names"},
    {BASE "zip: {index: [1]}\n",
     "t.yaml:3:7: 'index' in 'zip': 'seed', 'index', 'task' and 'sweep' are built-in "
     "placeholders, not "
     "parameter names"},
    {BASE "grid: {learning-rate: [1]}\n",
     "t.yaml:3:8: invalid parameter name 'learning-rate' in 'grid': use letters, digits and "
     "'_', not starting with a digit"},
    {BASE "grid: {1x: [1]}\n",
     "t.yaml:3:8: invalid parameter name '1x' in 'grid': use letters, digits and '_', not "
     "starting with a digit"},
    /* zip */
    {BASE "zip:\n  arch: [a, b]\n  batch: [1, 2, 3]\n",
     "t.yaml:5:3: 'zip' lists must have the same length: 'batch' has 3 values, 'arch' has 2"},
    {BASE "zip: {lr: 1}\n", "t.yaml:3:11: 'zip.lr': expected a list, found a scalar"},
    {BASE "zip: {}\n", "t.yaml:3:6: 'zip' is empty: give it parameters or leave it out"},
    {BASE "grid: {lr: [1]}\nzip: {lr: [2]}\n",
     "t.yaml:4:7: parameter 'lr' is defined twice: in 'grid' (line 3) and in 'zip'"},
    {BASE "zip: {lr: [2]}\ngrid: {lr: [1]}\n",
     "t.yaml:3:7: parameter 'lr' is defined twice: in 'grid' (line 4) and in 'zip'"},
    /* cases */
    {BASE "cases: {a: 1}\n", "t.yaml:3:8: 'cases': expected a list, found a mapping"},
    {BASE "cases: []\n", "t.yaml:3:8: 'cases' is an empty list"},
    {BASE "cases: [1]\n", "t.yaml:3:9: case 1: expected a mapping, found a scalar"},
    {BASE "cases:\n  - {a: 1}\n  - [a]\n", "t.yaml:5:5: case 2: expected a mapping, found a list"},
    {BASE "cases:\n  -\n", "t.yaml:4:4: case 1: expected a mapping, found an empty value"},
    {BASE "cases: [{}]\n", "t.yaml:3:9: case 1 is empty"},
    {BASE "cases: [{lr: [1]}]\n", "t.yaml:3:14: 'lr' in case 1: expected a scalar, found a list"},
    {BASE "cases: [{lr: ~}]\n",
     "t.yaml:3:14: 'lr' in case 1: empty value (write '' for empty text)"},
    {BASE "cases: [{seed: 1}]\n",
     "t.yaml:3:10: 'seed' in case 1: 'seed', 'index', 'task' and 'sweep' are built-in "
     "placeholders, not "
     "parameter names"},
    {BASE "cases: [{a-b: 1}]\n",
     "t.yaml:3:10: invalid parameter name 'a-b' in case 1: use letters, digits and '_', not "
     "starting with a digit"},
    {BASE "grid: {lr: [1], wd: [0]}\ncases:\n  - {lr: 2}\n",
     "t.yaml:5:5: case 1 does not set 'wd' (each case sets every grid and zip parameter)"},
    {BASE "zip: {arch: [a], batch: [1]}\ncases:\n  - {arch: b, batch: 2}\n  - {arch: c}\n",
     "t.yaml:6:5: case 2 does not set 'batch' (each case sets every grid and zip parameter)"},
    {BASE "grid: {lr: [1]}\ncases:\n  - {lr: 2, lrr: 3}\n",
     "t.yaml:5:13: case 1 sets 'lrr', which is not a grid or zip parameter; did you mean "
     "'lr'?"},
    {BASE "grid: {lr: [1]}\ncases:\n  - {lr: 2, frobnicate: 3}\n",
     "t.yaml:5:13: case 1 sets 'frobnicate', which is not a grid or zip parameter"},
    {BASE "cases:\n  - {a: 1, b: 2}\n  - {a: 3}\n",
     "t.yaml:5:5: case 2 does not set 'b', which case 1 sets"},
    {BASE "cases:\n  - {a: 1}\n  - {a: 3, c: 4}\n",
     "t.yaml:5:12: case 2 sets 'c', which case 1 does not set"},
    {BASE "cases:\n  - {ab: 1}\n  - {ac: 3}\n",
     "t.yaml:5:6: case 2 sets 'ac', which case 1 does not set; did you mean 'ab'?"},
    /* slurm */
    {BASE "slurm: [1]\n", "t.yaml:3:8: 'slurm': expected a mapping, found a list"},
    {BASE "slurm: {cpus_per_task: eight}\n",
     "t.yaml:3:24: 'slurm.cpus_per_task': expected a positive integer, found 'eight'"},
    {BASE "slurm: {cpus_per_task: 0}\n",
     "t.yaml:3:24: 'slurm.cpus_per_task': expected a positive integer, found '0'"},
    {BASE "slurm: {nodes: -1}\n",
     "t.yaml:3:16: 'slurm.nodes': expected a positive integer, found '-1'"},
    {BASE "slurm: {ntasks: 1.5}\n",
     "t.yaml:3:17: 'slurm.ntasks': expected a positive integer, found '1.5'"},
    {BASE "slurm: {max_concurrent: 2147483648}\n",
     "t.yaml:3:25: 'slurm.max_concurrent': expected a positive integer, found '2147483648'"},
    {BASE "slurm: {max_concurrent: [1]}\n",
     "t.yaml:3:25: 'slurm.max_concurrent': expected a scalar, found a list"},
    {BASE "slurm: {mem: 32GB}\n",
     "t.yaml:3:14: 'slurm.mem': bad memory size '32GB': write the suffix without 'B' (32G, "
     "not 32GB): sbatch refuses it"},
    {BASE "slurm: {mem_per_cpu: 0}\n",
     "t.yaml:3:22: 'slurm.mem_per_cpu': bad memory size '0': a memory size of zero is not "
     "allowed (sbatch reads it as all of a node's memory)"},
    {BASE "slurm: {mem: 1.5G}\n",
     "t.yaml:3:14: 'slurm.mem': bad memory size '1.5G': expected a whole number with an "
     "optional suffix K, M, G or T (as in 4000 or 32G)"},
    {BASE "slurm: {requeue: yes}\n",
     "t.yaml:3:18: 'slurm.requeue': expected true or false, found 'yes'"},
    {BASE "slurm: {max_restarts: 3}\n",
     "t.yaml:3:23: 'slurm.max_restarts' needs 'slurm.requeue: true'"},
    {BASE "slurm: {requeue: true, max_restarts: 0}\n",
     "t.yaml:3:38: 'slurm.max_restarts': expected a positive integer, found '0'"},
    {BASE "checkpoint: {pattern: '*.pt'}\n",
     "t.yaml:3:13: 'checkpoint' gives 'pattern' without 'keep'"},
    {BASE "retries: 0\n", "t.yaml:3:10: 'retries': expected a positive integer, found '0'"},
    {BASE "confirm_of: 0\n", "t.yaml:3:13: 'confirm_of': expected a positive integer, found '0'"},
    {BASE "confirm_of: twelve\n",
     "t.yaml:3:13: 'confirm_of': expected a positive integer, found 'twelve'"},
    {BASE "retries: 21\n", "t.yaml:3:10: 'retries': at most 20 rounds, found 21"},
    {BASE "retries: [1]\n", "t.yaml:3:10: 'retries': expected a scalar, found a list"},
    {BASE "retry_on_exit: true\n", "t.yaml:3:16: 'retry_on_exit' needs 'retries'"},
    {BASE "retries: 1\nretry_on_exit: 1\n",
     "t.yaml:4:16: 'retry_on_exit': expected true or false, found '1'"},
    {BASE "retrys: 1\n", "t.yaml:3:1: unknown key 'retrys'; did you mean 'retries'?"},
    {BASE "notify: me@lab.org\n", "t.yaml:3:9: 'notify': expected a mapping, found a scalar"},
    {BASE "notify: {}\n", "t.yaml:3:9: 'notify' needs 'mail', 'command' or both"},
    {BASE "notify: {mial: me@lab.org}\n",
     "t.yaml:3:10: unknown key 'mial' in 'notify'; did you mean 'mail'?"},
    {BASE "notify: {mail: \"me @lab.org\"}\n",
     "t.yaml:3:16: 'notify.mail': 'me @lab.org' is not a mail address (no spaces, quotes, "
     "backslashes or control characters)"},
    {BASE "notify: {mail: -me}\n",
     "t.yaml:3:16: 'notify.mail': expected a mail address, found '-me'"},
    {BASE "notify: {command: \" \"}\n", "t.yaml:3:19: 'notify.command' is empty"},
    {BASE "notify: {command: [a]}\n",
     "t.yaml:3:19: 'notify.command': expected a scalar, found a list"},
    {BASE "fail_fast: -2\n", "t.yaml:3:12: 'fail_fast': expected a positive integer, found '-2'"},
    {BASE "checkpoint: {size: 2GB}\n",
     "t.yaml:3:20: 'checkpoint.size': bad size '2GB': write the suffix without 'B' "
     "(32G, not 32GB): sbatch refuses it"},
    {BASE "checkpoint: {sise: 2G}\n",
     "t.yaml:3:14: unknown key 'sise' in 'checkpoint'; did you mean 'size'?"},
    {BASE "slurm: {time: 2, signal: USR1}\n",
     "t.yaml:3:26: the warning signal (USR1@120) would be sent at the start: Slurm sends it "
     "up to 30 s early, and 'slurm.time' is only 2 minutes; give 'slurm.signal' fewer seconds (e.g. USR1@30) or more time"},
    {BASE "slurm: {time: 2, signal: USR1@90}\n",
     "t.yaml:3:26: the warning signal (USR1@90) would be sent at the start: Slurm sends it "
     "up to 30 s early, and 'slurm.time' is only 2 minutes; give 'slurm.signal' fewer seconds "
     "(e.g. USR1@30) or more time"},
    {BASE "slurm: {signal: USR2@60, time: \"0:45\"}\n",
     "t.yaml:3:17: the warning signal (USR2@60) would be sent at the start: Slurm sends it "
     "up to 30 s early, and 'slurm.time' is only 1 minute; give 'slurm.signal' fewer seconds (e.g. USR2@15) or more time"},
    {BASE "slurm:\n  mem: 4G\n  mem_per_cpu: 1G\n",
     "t.yaml:5:3: 'slurm.mem' and 'slurm.mem_per_cpu' cannot both be given"},
    {BASE "slurm:\n  mem_per_cpu: 1G\n  mem: 4G\n",
     "t.yaml:5:3: 'slurm.mem' and 'slurm.mem_per_cpu' cannot both be given"},
    {BASE "slurm: {time: \"25:61:00\"}\n",
     "t.yaml:3:15: 'slurm.time': bad time '25:61:00': minutes and seconds after the first "
     "field must be below 60"},
    {BASE "slurm: {time: 0}\n",
     "t.yaml:3:15: 'slurm.time': bad time '0': a time limit of zero is not allowed"},
    {BASE "slurm: {time: 1h}\n",
     "t.yaml:3:15: 'slurm.time': bad time '1h': expected minutes, M:S, H:M:S, D-H, D-H:M, "
     "D-H:M:S or UNLIMITED (as in 90, 4:00:00 or 1-12:00:00)"},
    {BASE "slurm: {partition: \"gpu\\\"x\"}\n",
     "t.yaml:3:20: 'slurm.partition': bad value 'gpu\"x': quotes are not allowed (sbatch's "
     "#SBATCH parser would take them as its own)"},
    {BASE "slurm: {account: \"a\\nb\"}\n",
     "t.yaml:3:18: 'slurm.account': bad value 'a\\nb': control characters (newline, tab...) "
     "are not allowed"},
    {BASE "slurm: {qos: 'a\\b'}\n",
     "t.yaml:3:14: 'slurm.qos': bad value 'a\\b': backslashes are not allowed (sbatch's "
     "#SBATCH parser reads them as escapes)"},
    {BASE "slurm: {gres: \"\"}\n", "t.yaml:3:15: 'slurm.gres': bad value '': empty value"},
    {BASE "slurm: {constraint: ~}\n",
     "t.yaml:3:21: 'slurm.constraint': expected a scalar, found an empty value"},
    {BASE "slurm: {gpus_per_task: [1]}\n",
     "t.yaml:3:24: 'slurm.gpus_per_task': expected a scalar, found a list"},
    {BASE "slurm: {signal: KILL}\n",
     "t.yaml:3:17: 'slurm.signal': unknown signal 'KILL': use USR1, USR2, TERM, INT, HUP, QUIT "
     "or ALRM, optionally with @SECONDS"},
    {BASE "slurm: {signal: 10}\n",
     "t.yaml:3:17: 'slurm.signal': unknown signal '10': use USR1, USR2, TERM, INT, HUP, QUIT "
     "or ALRM, optionally with @SECONDS"},
    {BASE "slurm: {signal: \"@60\"}\n",
     "t.yaml:3:17: 'slurm.signal': unknown signal '': use USR1, USR2, TERM, INT, HUP, QUIT "
     "or ALRM, optionally with @SECONDS"},
    {BASE "slurm: {signal: USR1@70000}\n",
     "t.yaml:3:17: 'slurm.signal': bad seconds in 'USR1@70000': expected a whole number from "
     "0 to 65535"},
    {BASE "slurm: {signal: USR1@-1}\n",
     "t.yaml:3:17: 'slurm.signal': bad seconds in 'USR1@-1': expected a whole number from 0 "
     "to 65535"},
    {BASE "slurm: {signal: USR1@}\n",
     "t.yaml:3:17: 'slurm.signal': bad seconds in 'USR1@': expected a whole number from 0 to "
     "65535"},
    {BASE "slurm: {signal: \"B:USR1@60\"}\n",
     "t.yaml:3:17: 'slurm.signal': write 'B:USR1@60' without 'B:' or 'R:' (sweep decides how "
     "the signal is sent)"},
    {BASE "slurm: {extra: --hold}\n",
     "t.yaml:3:16: 'slurm.extra': expected a list, found a scalar"},
    {BASE "slurm: {extra: [[a]]}\n",
     "t.yaml:3:17: 'slurm.extra': expected a scalar in the list, found a list"},
    {BASE "slurm:\n  extra: [--hold, --qos=normal]\n",
     "t.yaml:4:19: 'slurm.extra': '--qos' has its own key: use 'slurm.qos' instead"},
    {BASE "slurm:\n  extra: [--partiton=gpu]\n",
     "t.yaml:4:11: 'slurm.extra': unknown sbatch option '--partiton'; did you mean "
     "'--partition'?"},
    {BASE "slurm:\n  extra:\n    - --exclusive\n    - --exclusive=user\n",
     "t.yaml:6:7: 'slurm.extra': '--exclusive' is given twice (first at line 5)"},
    /* env */
    {BASE "env: [A]\n", "t.yaml:3:6: 'env': expected a mapping, found a list"},
    {BASE "env: {1A: x}\n",
     "t.yaml:3:7: invalid variable name '1A' in 'env': use letters, digits and '_', not "
     "starting with a digit"},
    {BASE "env: {A-B: x}\n",
     "t.yaml:3:7: invalid variable name 'A-B' in 'env': use letters, digits and '_', not "
     "starting with a digit"},
    {BASE "env: {SLURM_X: 1}\n",
     "t.yaml:3:7: variable 'SLURM_X' in 'env': names starting with SLURM_ or SWEEP_ (in any "
     "case) are reserved"},
    {BASE "env: {SWEEP_SEED: 1}\n",
     "t.yaml:3:7: variable 'SWEEP_SEED' in 'env': names starting with SLURM_ or SWEEP_ (in "
     "any case) are reserved"},
    /* The script's own variables, and bash's (issue 16.9). */
    {BASE "env: {sweep_signalled: 1}\n",
     "t.yaml:3:7: variable 'sweep_signalled' in 'env': names starting with SLURM_ or SWEEP_ "
     "(in any case) are reserved"},
    {BASE "env: {UID: 0}\n", "t.yaml:3:7: variable 'UID' in 'env': bash sets it itself (it "
                             "is read-only or changes how the script runs)"},
    {BASE "env: {SHELLOPTS: xtrace}\n",
     "t.yaml:3:7: variable 'SHELLOPTS' in 'env': bash sets it itself (it is read-only or "
     "changes how the script runs)"},
    {BASE "env: {BASH_ENV: /tmp/x}\n",
     "t.yaml:3:7: variable 'BASH_ENV' in 'env': bash sets it itself (it is read-only or "
     "changes how the script runs)"},
    {BASE "env: {IFS: x}\n", "t.yaml:3:7: variable 'IFS' in 'env': bash sets it itself (it "
                             "is read-only or changes how the script runs)"},
    {BASE "env: {A: [1]}\n", "t.yaml:3:10: 'env.A': expected a scalar, found a list"},
    {BASE "env: {A: ~}\n", "t.yaml:3:10: 'env.A': empty value (write '' for empty text)"},
    /* metrics */
    {BASE "metrics: [accuracy]\n", "t.yaml:3:10: 'metrics': expected a mapping, found a list"},
    {BASE "metrics: {accuracy: maximum}\n",
     "t.yaml:3:21: 'metrics.accuracy': expected max or min, found 'maximum'"},
    {BASE "metrics: {accuracy: [max]}\n",
     "t.yaml:3:21: 'metrics.accuracy': expected max, min or {goal: max|min, label: TEXT}, "
     "found a list"},
    /* The long form: {goal: ..., label: ...}. */
    {BASE "metrics: {loss: {goal: minimum}}\n",
     "t.yaml:3:24: 'metrics.loss.goal': expected max or min, found 'minimum'"},
    {BASE "metrics: {loss: {goal: [min]}}\n",
     "t.yaml:3:24: 'metrics.loss.goal': expected max or min, found a list"},
    {BASE "metrics: {loss: {goal: min, lable: nats}}\n",
     "t.yaml:3:29: unknown key 'lable' in 'metrics.loss'; did you mean 'label'?"},
    {BASE "metrics:\n  loss:\n    goal: min\n    goal: max\n",
     "t.yaml:6:5: duplicate key 'goal' in 'metrics.loss' (first at line 5)"},
    {BASE "metrics: {loss: {label: ''}}\n",
     "t.yaml:3:25: 'metrics.loss.label' is empty (leave it out to label the axis 'loss')"},
    {BASE "metrics: {loss: {label: [nats]}}\n",
     "t.yaml:3:25: 'metrics.loss.label': expected a scalar, found a list"},
    {BASE "metrics: {loss: {label: \"loss\\n(nats)\"}}\n",
     "t.yaml:3:25: 'metrics.loss.label': 'loss\\n(nats)' holds a control character; a label "
     "is one line"},
    {BASE "metrics: {loss: {}}\n",
     "t.yaml:3:17: 'metrics.loss' is empty: give 'goal: max' or 'min', 'label: TEXT', or both"},
    {BASE "metrics:\n  loss: min\n  loss: max\n",
     "t.yaml:5:3: duplicate key 'loss' in 'metrics' (first at line 4)"},
    {BASE "metrics: {\"\": max}\n", "t.yaml:3:11: empty key in 'metrics'"},
    {BASE "metrics: {loss: }\n", "t.yaml:3:17: 'metrics.loss': expected max or min, found ''"},
    {BASE "metric: {loss: min}\n", "t.yaml:3:1: unknown key 'metric'; did you mean 'metrics'?"},
    /* setup, logs, template */
    {BASE "setup: [a]\n", "t.yaml:3:8: 'setup': expected a scalar, found a list"},
    {BASE "setup: ~\n", "t.yaml:3:8: 'setup': expected a scalar, found an empty value"},
    {BASE "logs: \"logs/%x\"\n",
     "t.yaml:3:7: 'logs': bad value 'logs/%x': '%' is not allowed here (sbatch expands %x, "
     "%A, %a... in file names)"},
    {BASE "logs: \"my logs\\\\x\"\n",
     "t.yaml:3:7: 'logs': bad value 'my logs\\x': backslashes are not allowed (sbatch's "
     "#SBATCH parser reads them as escapes)"},
    {BASE "logs: {a: 1}\n", "t.yaml:3:7: 'logs': expected a scalar, found a mapping"},
    {BASE "template: \"\"\n", "t.yaml:3:11: 'template' is empty"},
    {BASE "template: [a]\n", "t.yaml:3:11: 'template': expected a scalar, found a list"},
    /* pack */
    {BASE "pack: 0\n", "t.yaml:3:7: 'pack': expected a positive integer, found '0'"},
    {BASE "pack: two\n", "t.yaml:3:7: 'pack': expected a positive integer, found 'two'"},
    {BASE "pack: [2]\n", "t.yaml:3:7: 'pack': expected a scalar, found a list"},
    {BASE "pack: 100001\n",
     "t.yaml:3:7: 'pack': at most 100000 tasks per array task, found '100001'"},
    {BASE "pack: 4\nresults:\n  log:\n    loss: 'loss=([0-9.]+)'\n",
     "t.yaml:3:7: 'pack' cannot be combined with 'results: log' (the packed tasks write one "
     "log, and each would read the last task's 'loss'); write the metrics to a file "
     "('results: file' or $SWEEP_RESULT) or use 'pack: 1'"},
    {BASE "pack: 4\nslurm: {requeue: true}\n",
     "t.yaml:3:7: 'pack' cannot be combined with 'slurm.requeue: true' (a requeue would run "
     "every task of the pack again); use 'pack: 1' or drop 'requeue'"},
    {BASE "pack: 4\nslurm: {ntasks: 2}\n",
     "t.yaml:3:7: 'pack' runs each task as a one-process job step: it cannot be combined with "
     "'slurm.ntasks' above 1"},
    {BASE "slurm: {nodes: 2}\npack: 4\n",
     "t.yaml:4:7: 'pack' runs each task as a one-process job step: it cannot be combined with "
     "'slurm.nodes' above 1"},
    {BASE "pak: 4\n", "t.yaml:3:1: unknown key 'pak'; did you mean 'pack'?"},
};

static const struct bad_case results_errors[] = {
    {BASE "results: {log: {acc: 'acc: ([0-9.'}}\n",
     "t.yaml:3:22: 'results.log.acc': invalid regular expression 'acc: ([0-9.': unmatched [, "
     "[^, [:, [., or [= (POSIX extended syntax)"},
    {BASE "results: {log: {acc: 'acc: (x'}}\n",
     "t.yaml:3:22: 'results.log.acc': invalid regular expression 'acc: (x': unmatched ( or "
     "\\( (POSIX extended syntax)"},
    {BASE "results: {log: {acc: 'x{2,1}(y)'}}\n",
     "t.yaml:3:22: 'results.log.acc': invalid regular expression 'x{2,1}(y)': invalid content "
     "of \\{\\} (POSIX extended syntax)"},
    {BASE "results:\n  log:\n    acc: 'acc: (\\d+)'\n",
     "t.yaml:5:10: 'results.log.acc': '\\d' in 'acc: (\\d+)' is not POSIX extended syntax (it "
     "would match a 'd'): write [0-9]"},
    {BASE "results: {log: {acc: 'acc: [0-9.]+'}}\n",
     "t.yaml:3:22: 'results.log.acc': the pattern 'acc: [0-9.]+' has no group: put the "
     "number in parentheses, e.g. 'loss: ([0-9.eE+-]+)'"},
    {BASE "results: {log: {acc: [a]}}\n",
     "t.yaml:3:22: 'results.log.acc': expected a scalar, found a list"},
    {BASE "results: {log: {}}\n", "t.yaml:3:16: 'results.log' names no metric"},
    {BASE "results: {log: {acc: 'acc (.*)'}, step: 'epoch ([0-9]+'}\n",
     "t.yaml:3:41: 'results.step': invalid regular expression 'epoch ([0-9]+': unmatched ( or "
     "\\( (POSIX extended syntax)"},
    {BASE "results: {log: {acc: 'acc (.*)'}, step: 'epoch [0-9]+'}\n",
     "t.yaml:3:41: 'results.step': the pattern 'epoch [0-9]+' has no group: put the number "
     "in parentheses, e.g. 'epoch ([0-9]+)'"},
    {BASE "results:\n  log: {acc: 'acc (.*)'}\n  step: 'epoch (\\d+)'\n",
     "t.yaml:5:9: 'results.step': '\\d' in 'epoch (\\d+)' is not POSIX extended syntax (it "
     "would match a 'd'): write [0-9]"},
    {BASE "results: {file: m.jsonl, step: 'epoch ([0-9]+)'}\n",
     "t.yaml:3:32: 'results.step' goes with 'log': name the metrics of the learning curves in "
     "'results.log'"},
    {BASE "results: {log: {acc: 'acc (.*)'}, step: [a]}\n",
     "t.yaml:3:41: 'results.step': expected a scalar, found a list"},
    {BASE "results: {log: {acc: 'acc (.*)'}, stpe: 'epoch ([0-9]+)'}\n",
     "t.yaml:3:35: unknown key 'stpe' in 'results'; did you mean 'step'?"},
    {BASE "results: {file: out.txt}\n",
     "t.yaml:3:17: 'results.file': cannot tell the format of 'out.txt' from its name: end it "
     "in .json (an object), .jsonl or .ndjson (JSON Lines: the last line) or .csv (a header, "
     "then the last row)"},
    {BASE "results: {file: ''}\n", "t.yaml:3:17: 'results.file' is empty"},
    {BASE "results: {}\n", "t.yaml:3:10: 'results' needs 'file', 'log' or both"},
    {BASE "results: {fiel: a.json}\n",
     "t.yaml:3:11: unknown key 'fiel' in 'results'; did you mean 'file'?"},
    {BASE "grid: {lr: [1]}\nresults: {file: 'runs/{lr}/{sed}.json'}\n",
     "t.yaml:4:17: 'results.file': unknown placeholder '{sed}'; did you mean '{seed}'?"},
};

static void check_bad(const struct bad_case *cases, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct cfg cfg;
		char *want = xstrfmt("error: %s", cases[i].msg);
		int ret;

		cfg_init(&cfg);
		capture_errors();
		ret = cfg_load_string(&cfg, "t.yaml", cases[i].yaml, strlen(cases[i].yaml));
		if (ret >= 0)
			fail_msg("row %zu accepted:\n%s", i, cases[i].yaml);
		if (strcmp(captured.buf, want))
			fail_msg("row %zu:\n%s\nwant: %s\ngot:  %s", i, cases[i].yaml, want,
			         captured.buf);
		/* On failure the cfg is left empty. */
		assert_null(cfg.name);
		assert_null(cfg.path);
		assert_int_equal(cfg.ngrid, 0);
		free(want);
		release_captured();
	}
}

#define CHECK_BAD(table) check_bad(table, sizeof(table) / sizeof(table[0]))

static void test_cfg_results_errors(void **state)
{
	(void)state;
	CHECK_BAD(results_errors);
}

#define SBASE BASE "trials: 5\n"
static const struct bad_case sample_errors[] = {
    {SBASE "sample: {lr: {uniform: [1, 0]}}\n",
     "t.yaml:4:28: 'sample.lr.uniform': the bounds are out of order: '0' is not above '1'"},
    {SBASE "sample: {lr: {uniform: [1, 1]}}\n",
     "t.yaml:4:28: 'sample.lr.uniform': the bounds are out of order: '1' is not above '1'"},
    {SBASE "sample: {w: {int: [5, 4]}}\n",
     "t.yaml:4:23: 'sample.w.int': the bounds are out of order: '4' is not above '5'"},
    {SBASE "sample: {lr: {loguniform: [0, 1]}}\n",
     "t.yaml:4:28: 'sample.lr.loguniform': the bounds must be above 0, found '0'"},
    {SBASE "sample: {lr: {loguniform: [-1, 1]}}\n",
     "t.yaml:4:28: 'sample.lr.loguniform': the bounds must be above 0, found '-1'"},
    {SBASE "sample: {act: {choice: []}}\n", "t.yaml:4:24: 'sample.act.choice' is an empty list"},
    {SBASE "sample: {act: {choice: relu}}\n",
     "t.yaml:4:24: 'sample.act.choice': expected a list, found a scalar"},
    {SBASE "sample: {act: {choice: [[a]]}}\n",
     "t.yaml:4:25: 'sample.act.choice': expected a value, found a list"},
    {SBASE "sample: {lr: {uniform: [0]}}\n",
     "t.yaml:4:24: 'sample.lr.uniform': expected two bounds [low, high], found another count"},
    {SBASE "sample: {lr: {uniform: 3}}\n",
     "t.yaml:4:24: 'sample.lr.uniform': expected two bounds [low, high], found a scalar"},
    {SBASE "sample: {lr: {uniform: [a, 1]}}\n",
     "t.yaml:4:25: 'sample.lr': expected a number, found 'a'"},
    {SBASE "sample: {lr: {uniform: [1e999, 1]}}\n",
     "t.yaml:4:25: 'sample.lr': expected a number, found '1e999'"},
    {SBASE "sample: {lr: {uniform: [[0], 1]}}\n",
     "t.yaml:4:25: 'sample.lr': expected a number as bound, found a list"},
    {SBASE "sample: {w: {int: [1.5, 4]}}\n",
     "t.yaml:4:20: 'sample.w': expected a whole number, found '1.5'"},
    {SBASE "sample: {w: {int: [0, 9007199254740992]}}\n",
     "t.yaml:4:23: 'sample.w': '9007199254740992' is past the largest whole number a draw "
     "holds exactly: the bounds of int must lie from -9007199254740991 to 9007199254740991 "
     "(2^53 - 1)"},
    {SBASE "sample: {w: {int: [-99999999999999999999, 0]}}\n",
     "t.yaml:4:20: 'sample.w': '-99999999999999999999' is past the largest whole number a "
     "draw holds exactly: the bounds of int must lie from -9007199254740991 to "
     "9007199254740991 (2^53 - 1)"},
    {SBASE "sample: {lr: {uniform: [-1e308, 1e308]}}\n",
     "t.yaml:4:33: 'sample.lr.uniform': the bounds '-1e308' and '1e308' are too far apart: "
     "their distance passes the largest number (1.79769e+308) and every draw would be inf; "
     "narrow them"},
    {SBASE "sample: {w: {int: [0, 4], log: true}}\n",
     "t.yaml:4:20: 'sample.w': int with log: true needs bounds of 1 or more, found '0'"},
    {SBASE "sample: {w: {uniform: [0, 4], log: true}}\n",
     "t.yaml:4:36: 'sample.w.log' is for int only (use loguniform)"},
    {SBASE "sample: {w: {int: [1, 4], log: maybe}}\n",
     "t.yaml:4:32: 'log': expected true or false, found 'maybe'"},
    {SBASE "sample: {w: {unifrom: [0, 4]}}\n",
     "t.yaml:4:14: unknown key 'unifrom' in 'sample.w'; did you mean 'uniform'?"},
    {SBASE "sample: {w: {uniform: [0, 4], int: [0, 4]}}\n",
     "t.yaml:4:31: 'sample.w': 'uniform' and 'int' both given; give one"},
    {SBASE "sample: {w: {log: true}}\n",
     "t.yaml:4:13: 'sample.w': give one of uniform, loguniform, int or choice"},
    {SBASE "sample: {w: [0, 1]}\n",
     "t.yaml:4:13: 'sample.w': expected a mapping such as {uniform: [0, 1]}, found a list"},
    {SBASE "sample: {}\n", "t.yaml:4:9: 'sample' is empty: give it parameters or leave it out"},
    {SBASE "sample: [a]\n", "t.yaml:4:9: 'sample': expected a mapping, found a list"},
    {SBASE "sample: {seed: {uniform: [0, 1]}}\n",
     "t.yaml:4:10: 'seed' in 'sample': 'seed', 'index', 'task' and 'sweep' are built-in "
     "placeholders, not parameter names"},
    {BASE "trials: 0\nsample: {lr: {uniform: [0, 1]}}\n",
     "t.yaml:3:9: 'trials': expected a whole number from 1 to 100000, found '0'"},
    {BASE "trials: -2\nsample: {lr: {uniform: [0, 1]}}\n",
     "t.yaml:3:9: 'trials': expected a whole number from 1 to 100000, found '-2'"},
    {BASE "trials: 100001\nsample: {lr: {uniform: [0, 1]}}\n",
     "t.yaml:3:9: 'trials': expected a whole number from 1 to 100000, found '100001'"},
    {BASE "sample: {lr: {uniform: [0, 1]}}\n",
     "t.yaml:1:1: 'sample' needs 'trials' (how many settings to draw)"},
    {BASE "trials: 3\n", "t.yaml:3:9: 'trials' needs 'sample' (the parameters to draw)"},
    {BASE "sample_seed: 3\n", "t.yaml:3:14: 'sample_seed' needs 'sample' (the parameters to draw)"},
    {BASE "sample_digits: 3\n",
     "t.yaml:3:16: 'sample_digits' needs 'sample' (the parameters to draw)"},
    {SBASE "sample_seed: -1\nsample: {lr: {uniform: [0, 1]}}\n",
     "t.yaml:4:14: 'sample_seed': expected a whole number of 0 or more, found '-1'"},
    {SBASE "sample_digits: 18\nsample: {lr: {uniform: [0, 1]}}\n",
     "t.yaml:4:16: 'sample_digits': at most 17, found '18'"},
    {SBASE "sample_digits: 0\nsample: {lr: {uniform: [0, 1]}}\n",
     "t.yaml:4:16: 'sample_digits': expected a positive integer, found '0'"},
    {SBASE "grid: {lr: [1, 2]}\nsample: {lr: {uniform: [0, 1]}}\n",
     "t.yaml:5:10: parameter 'lr' is both sampled and in 'grid' (line 4); keep one"},
    {SBASE "zip: {lr: [1, 2]}\nsample: {lr: {uniform: [0, 1]}}\n",
     "t.yaml:5:10: parameter 'lr' is both sampled and in 'zip' (line 4); keep one"},
    {SBASE "cases: [{a: 1}]\nsample: {lr: {uniform: [0, 1]}}\n",
     "t.yaml:5:9: 'sample' and 'cases' cannot be used together: sample the cases' parameters "
     "with choice, or make two sweeps"},
    {"name: x\ncommand: run {lt}\ntrials: 2\nsample: {lr: {uniform: [0, 1]}}\n",
     "t.yaml:2:10: 'command': unknown placeholder '{lt}'; did you mean '{lr}'?"},
};

static void test_cfg_sample_errors(void **state)
{
	(void)state;
	CHECK_BAD(sample_errors);
}

static void test_cfg_results(void **state)
{
	struct cfg cfg;
	static const char yaml[] = BASE "grid: {lr: [1]}\nresults:\n  file: "
	                                "'runs/{lr}/{seed}/m.CSV'\n  log:\n    acc: "
	                                "'test accuracy: ([0-9.eE+-]+)'\n    loss: "
	                                "'loss=([^ ]+)'\n";

	(void)state;
	cfg_init(&cfg);
	assert_int_equal(cfg_load_string(&cfg, "t.yaml", yaml, strlen(yaml)), 0);
	assert_true(cfg.results.given);
	assert_string_equal(cfg.results.file, "runs/{lr}/{seed}/m.CSV");
	assert_int_equal(cfg.results.format, CFG_RESULTS_CSV);
	assert_int_equal(cfg.results.nlog, 2);
	assert_string_equal(cfg.results.log[0].name, "acc");
	assert_string_equal(cfg.results.log[0].pattern, "test accuracy: ([0-9.eE+-]+)");
	assert_string_equal(cfg.results.log[1].name, "loss");
	assert_null(cfg.results.step);
	cfg_release(&cfg);
}

static void test_cfg_results_step(void **state)
{
	struct cfg cfg;
	static const char yaml[] = BASE "results:\n  step: 'epoch ([0-9]+)'\n  log: {val_acc: "
	                                "'val_acc ([0-9.]+)'}\n";

	(void)state;
	cfg_init(&cfg);
	assert_int_equal(cfg_load_string(&cfg, "t.yaml", yaml, strlen(yaml)), 0);
	assert_string_equal(cfg.results.step, "epoch ([0-9]+)");
	assert_int_equal(cfg.results.nlog, 1);
	assert_null(cfg.results.file);
	cfg_release(&cfg);
}

static void test_cfg_results_formats(void **state)
{
	static const struct {
		const char *file;
		int format; /* -1: none */
	} rows[] = {
	    {"m.json", CFG_RESULTS_JSON},
	    {"a/b.JSON", CFG_RESULTS_JSON},
	    {"m.jsonl", CFG_RESULTS_JSONL},
	    {"m.ndjson", CFG_RESULTS_JSONL},
	    {"m.csv", CFG_RESULTS_CSV},
	    {"$SWEEP_RESULT", CFG_RESULTS_JSON},
	    {".json", -1},
	    {"m.txt", -1},
	    {"m.json.gz", -1},
	    {"csv", -1},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		enum cfg_results_format f;
		int ret = cfg_results_format_of(&f, rows[i].file);

		if (rows[i].format < 0) {
			assert_int_equal(ret, -1);
			continue;
		}
		assert_int_equal(ret, 0);
		assert_int_equal(f, rows[i].format);
	}
	assert_string_equal(cfg_results_format_name(CFG_RESULTS_JSONL), "JSON Lines");
}

/*
 * The warning signal only when asked for; a default that does not fit a
 * short limit is scaled down with a note, an explicit one stays an error.
 */
static void test_cfg_signal_when_asked(void **state)
{
	static const struct {
		const char *yaml;
		const char *signal; /* NULL: none */
		unsigned seconds;
		const char *note;
	} rows[] = {
	    {BASE "slurm: {time: 1}\n", NULL, 0, NULL},
	    {BASE "slurm: {time: 60}\n", NULL, 0, NULL},
	    {BASE "slurm: {time: 60, signal: USR2}\n", "USR2", 120, NULL},
	    {BASE "slurm: {time: 1, signal: USR1@10}\n", "USR1", 10, NULL},
	    {BASE "slurm: {time: 2, signal: USR1@89}\n", "USR1", 89, NULL},
	    {BASE "slurm: {time: 60, requeue: true}\n", "USR1", 120, NULL},
	    {BASE "slurm: {requeue: true}\n", "USR1", 120, NULL},
	    {BASE "checkpoint: {size: 1G}\n", "USR1", 120, NULL},
	    {BASE "slurm: {time: 1, requeue: true}\n", "USR1", 15,
	     "the default warning signal USR1@120 does not fit 'slurm.time' of 1 minute: using "
	     "USR1@15 (write 'slurm.signal' to choose)"},
	    {BASE "slurm: {time: 2}\ncheckpoint: {size: 1G}\n", "USR1", 30,
	     "the default warning signal USR1@120 does not fit 'slurm.time' of 2 minutes: using "
	     "USR1@30 (write 'slurm.signal' to choose)"},
	    {BASE "slurm: {time: 3, requeue: true}\n", "USR1", 120, NULL},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct cfg cfg;

		cfg_init(&cfg);
		if (cfg_load_string(&cfg, "t.yaml", rows[i].yaml, strlen(rows[i].yaml)) < 0)
			fail_msg("row %zu refused", i);
		if (!rows[i].signal) {
			assert_null(cfg.slurm.signal);
		} else {
			assert_string_equal(cfg.slurm.signal, rows[i].signal);
			assert_int_equal(cfg.slurm.signal_seconds, rows[i].seconds);
		}
		if (rows[i].note)
			assert_string_equal(cfg.signal_note, rows[i].note);
		else
			assert_null(cfg.signal_note);
		cfg_release(&cfg);
	}
}

static void test_cfg_structure_errors(void **state)
{
	(void)state;
	CHECK_BAD(structure_errors);
}

static void test_cfg_key_errors(void **state)
{
	(void)state;
	CHECK_BAD(key_errors);
}

static void test_cfg_value_errors(void **state)
{
	(void)state;
	CHECK_BAD(value_errors);
}

/* Long lists are checked for repeats by sorting, not pair by pair. */
static void test_cfg_long_lists(void **state)
{
	struct strbuf yaml = STRBUF_INIT;
	struct cfg cfg;
	int i;

	(void)state;
	strbuf_addstr(&yaml, BASE "seeds: [");
	for (i = 0; i < 100000; i++)
		strbuf_addf(&yaml, "%d, ", 100000 - i);
	strbuf_addstr(&yaml, "0]\ngrid:\n  v: [");
	for (i = 0; i < 100000; i++)
		strbuf_addf(&yaml, "v%d, ", i);
	strbuf_addstr(&yaml, "v0]\n");
	cfg_init(&cfg);
	capture_errors();
	assert_int_equal(cfg_load_string(&cfg, "t.yaml", yaml.buf, yaml.len), SWEEP_ERR);
	assert_non_null(strstr(captured.buf, ": 'grid.v' lists 'v0' twice (first at line 5)"));
	release_captured();
	strbuf_release(&yaml);
}

/* Deep nesting is refused before it can exhaust the stack. */
static void test_cfg_nesting_limit(void **state)
{
	struct strbuf yaml = STRBUF_INIT;
	struct cfg cfg;
	int i;

	(void)state;
	strbuf_addstr(&yaml, BASE "grid: {a: ");
	for (i = 0; i < 100; i++)
		strbuf_addch(&yaml, '[');
	for (i = 0; i < 100; i++)
		strbuf_addch(&yaml, ']');
	strbuf_addstr(&yaml, "}\n");
	cfg_init(&cfg);
	capture_errors();
	assert_int_equal(cfg_load_string(&cfg, "t.yaml", yaml.buf, yaml.len), SWEEP_ERR);
	/* The root mapping is level 0, {a: ...} level 1, the 63rd '[' level 64. */
	assert_string_equal(captured.buf, "error: t.yaml:3:73: nested deeper than 64 levels");
	release_captured();
	strbuf_release(&yaml);
}

static void test_cfg_missing_file(void **state)
{
	struct cfg cfg;
	char *want = xstrfmt("error: cannot read '%s/cfg/does-not-exist.yaml': %s", SWEEP_TEST_DATA,
	                     strerror(ENOENT));

	(void)state;
	cfg_init(&cfg);
	capture_errors();
	assert_int_equal(cfg_load(&cfg, SWEEP_TEST_DATA "/cfg/does-not-exist.yaml"), SWEEP_ERR);
	assert_string_equal(captured.buf, want);
	free(want);

	/* A folder opens but cannot be read. */
	strbuf_reset(&captured);
	want =
	    xstrfmt("error: cannot read '%s/cfg': not a regular file or a pipe", SWEEP_TEST_DATA);
	assert_int_equal(cfg_load(&cfg, SWEEP_TEST_DATA "/cfg"), SWEEP_ERR);
	assert_string_equal(captured.buf, want);
	free(want);
	release_captured();
	assert_null(cfg.path);
}

static void test_cfg_unreadable_file(void **state)
{
	char *dir, *path;
	struct cfg cfg;
	FILE *f;

	(void)state;
	if (geteuid() == 0)
		skip(); /* root reads anything */
	dir = make_tmpdir();
	path = xstrfmt("%s/locked.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(BASE, f);
	fclose(f);
	assert_int_equal(chmod(path, 0), 0);
	cfg_init(&cfg);
	capture_errors();
	assert_int_equal(cfg_load(&cfg, path), SWEEP_ERR);
	assert_non_null(strstr(captured.buf, "Permission denied"));
	release_captured();
	remove_tree(dir);
	free(path);
	free(dir);
}

/*
 * The sweep file is read once, fully, with a limit: a device or a large
 * file is refused, a FIFO nobody writes to does not hang, a pipe
 * (submit <(...)) is read to its end (issue 16.7).
 */
static void test_cfg_hostile_files(void **state)
{
	char *dir = make_tmpdir();
	char *fifo = xstrfmt("%s/fifo.yaml", dir), *big = xstrfmt("%s/big.yaml", dir), *want;
	char *fdpath;
	struct cfg cfg;
	int fds[2];
	FILE *f;

	(void)state;
	cfg_init(&cfg);
	capture_errors();
	assert_int_equal(cfg_load(&cfg, "/dev/zero"), SWEEP_ERR);
	assert_string_equal(captured.buf,
	                    "error: cannot read '/dev/zero': not a regular file or a pipe");

	assert_int_equal(mkfifo(fifo, 0600), 0);
	strbuf_reset(&captured);
	assert_int_equal(cfg_load(&cfg, fifo), SWEEP_ERR);

	f = fopen(big, "w");
	assert_non_null(f);
	fputs(BASE, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(truncate(big, CFG_MAX_BYTES + 1), 0);
	strbuf_reset(&captured);
	assert_int_equal(cfg_load(&cfg, big), SWEEP_ERR);
	want = xstrfmt("error: cannot read '%s': larger than 16 MiB; a sweep file this large is "
	               "a mistake",
	               big);
	assert_string_equal(captured.buf, want);
	free(want);

	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], BASE, strlen(BASE)), (ssize_t)strlen(BASE));
	close(fds[1]);
	fdpath = xstrfmt("/dev/fd/%d", fds[0]);
	strbuf_reset(&captured);
	assert_int_equal(cfg_load(&cfg, fdpath), 0);
	assert_string_equal(cfg.name, "x");
	assert_string_equal(cfg.command, "run");
	cfg_release(&cfg);
	close(fds[0]);

	release_captured();
	remove_tree(dir);
	free(fdpath);
	free(fifo);
	free(big);
	free(dir);
}

/* Messages carry the path as given. */
static void test_cfg_file_errors_name_the_path(void **state)
{
	struct cfg cfg;

	(void)state;
	cfg_init(&cfg);
	capture_errors();
	assert_int_equal(cfg_load(&cfg, SWEEP_TEST_DATA "/cfg/bad-key.yaml"), SWEEP_ERR);
	assert_string_equal(captured.buf, "error: " SWEEP_TEST_DATA
	                                  "/cfg/bad-key.yaml:7:3: unknown key 'partiton' in "
	                                  "'slurm'; did you mean 'partition'?");
	release_captured();
}

static void test_cfg_full_file(void **state)
{
	struct cfg cfg;
	const struct cfg_slurm *s = &cfg.slurm;

	(void)state;
	cfg_init(&cfg);
	capture_errors();
	assert_int_equal(cfg_load(&cfg, SWEEP_TEST_DATA "/cfg/full.yaml"), 0);
	assert_string_equal(captured.buf, "");
	release_captured();

	assert_string_equal(cfg.path, SWEEP_TEST_DATA "/cfg/full.yaml");
	assert_string_equal(cfg.name, "resnet-lr");
	assert_string_equal(cfg.command,
	                    "python train.py --lr {lr} --wd {wd} --arch {arch} \\\n"
	                    "  --batch {batch} --seed {seed} --out runs/{index} {{literal}}\n");
	assert_int_equal(cfg.nseeds, 5);
	assert_int_equal(cfg.seeds[0], 0);
	assert_int_equal(cfg.seeds[4], 4);

	assert_int_equal(cfg.ngrid, 2);
	assert_string_equal(cfg.grid[0].name, "lr");
	assert_int_equal(cfg.grid[0].nvalues, 3);
	assert_string_equal(cfg.grid[0].values[0], "0.1");
	assert_string_equal(cfg.grid[0].values[1], "0.010");
	assert_string_equal(cfg.grid[0].values[2], "5e-4");
	assert_int_equal(cfg.grid[0].line, 12);
	assert_int_equal(cfg.grid[0].column, 3);
	assert_string_equal(cfg.grid[1].name, "wd");
	assert_int_equal(cfg.grid[1].nvalues, 2);
	assert_string_equal(cfg.grid[1].values[0], "0");
	assert_string_equal(cfg.grid[1].values[1], "0.0005");

	assert_int_equal(cfg.nzip, 2);
	assert_string_equal(cfg.zip[0].name, "arch");
	assert_string_equal(cfg.zip[0].values[1], "resnet50");
	assert_string_equal(cfg.zip[1].name, "batch");
	assert_string_equal(cfg.zip[1].values[0], "256");
	assert_string_equal(cfg.zip[1].values[1], "128");

	assert_int_equal(cfg.ncases, 2);
	assert_int_equal(cfg.cases[0].n, 4);
	assert_string_equal(cfg.cases[0].names[0], "lr");
	assert_string_equal(cfg.cases[0].values[0], "0.3");
	assert_string_equal(cfg.cases[0].names[3], "batch");
	assert_string_equal(cfg.cases[0].values[3], "256");
	assert_int_equal(cfg.cases[0].line, 20);
	assert_int_equal(cfg.cases[0].column, 5);
	assert_string_equal(cfg.cases[1].names[0], "arch");
	assert_string_equal(cfg.cases[1].values[0], "vit");

	assert_string_equal(s->partition, "gpu");
	assert_string_equal(s->account, "lab");
	assert_string_equal(s->qos, "normal");
	assert_string_equal(s->gres, "gpu:1");
	assert_string_equal(s->gpus_per_task, "1");
	assert_string_equal(s->constraint, "a100|h100");
	assert_int_equal(s->cpus_per_task, 8);
	assert_int_equal(s->nodes, 1);
	assert_int_equal(s->ntasks, 1);
	assert_int_equal(s->mem_mb, 32768);
	assert_int_equal(s->mem_per_cpu_mb, 0);
	assert_int_equal(s->time_min, 24 * 60 + 1);
	assert_false(s->time_unlimited);
	assert_int_equal(s->max_concurrent, 10);
	assert_string_equal(s->signal, "USR2");
	assert_int_equal(s->signal_seconds, 300);
	assert_int_equal(s->nextra, 2);
	assert_string_equal(s->extra[0], "--mail-type=END,FAIL");
	assert_string_equal(s->extra[1], "--comment=lr sweep #3");

	assert_int_equal(cfg.nenv, 2);
	assert_string_equal(cfg.env[0].name, "WANDB_MODE");
	assert_string_equal(cfg.env[0].value, "offline");
	assert_string_equal(cfg.env[1].name, "OMP_NUM_THREADS");
	assert_string_equal(cfg.env[1].value, "8");
	assert_string_equal(cfg.setup, "module load cuda\nsource venv/bin/activate\n");
	assert_string_equal(cfg.logs, "out/logs");
	assert_string_equal(cfg.template_path, "my-template.sbatch");

	cfg_release(&cfg);
	assert_null(cfg.name);
	assert_int_equal(cfg.ngrid, 0);
}

static void test_cfg_defaults(void **state)
{
	static const char yaml[] = "name: tiny\ncommand: echo hi\n";
	struct cfg cfg;

	(void)state;
	cfg_init(&cfg);
	assert_int_equal(cfg_load_string(&cfg, "t.yaml", yaml, strlen(yaml)), 0);
	assert_string_equal(cfg.path, "t.yaml");
	assert_int_equal(cfg.nseeds, 1);
	assert_int_equal(cfg.seeds[0], 0);
	assert_int_equal(cfg.ngrid + cfg.nzip + cfg.ncases + cfg.nenv, 0);
	assert_string_equal(cfg.logs, "logs");
	assert_null(cfg.setup);
	assert_null(cfg.template_path);
	assert_null(cfg.slurm.partition);
	assert_int_equal(cfg.slurm.cpus_per_task, 0);
	assert_int_equal(cfg.slurm.mem_mb, 0);
	assert_int_equal(cfg.slurm.time_min, 0);
	assert_false(cfg.slurm.time_unlimited);
	assert_int_equal(cfg.slurm.max_concurrent, 0);
	/* No warning signal unless asked for: a program without a handler would die of it. */
	assert_null(cfg.slurm.signal);
	assert_false(cfg.slurm.signal_explicit);
	assert_null(cfg.signal_note);
	assert_false(cfg.results.given);
	assert_int_equal(cfg.slurm.nextra, 0);
	cfg_release(&cfg);
}

static int load_ok(struct cfg *cfg, const char *yaml)
{
	int ret;

	capture_errors();
	ret = cfg_load_string(cfg, "t.yaml", yaml, strlen(yaml));
	if (ret)
		fail_msg("refused:\n%s\n%s", yaml, captured.buf);
	release_captured();
	return ret;
}

static void test_cfg_seeds(void **state)
{
	struct cfg cfg;

	(void)state;
	cfg_init(&cfg);
	load_ok(&cfg, BASE "seeds: 3\n");
	assert_int_equal(cfg.nseeds, 3);
	assert_int_equal(cfg.seeds[2], 2);
	load_ok(&cfg, BASE "seeds: [7, -3, 9223372036854775807, -9223372036854775808, \"5\"]\n");
	assert_int_equal(cfg.nseeds, 5);
	assert_int_equal(cfg.seeds[0], 7);
	assert_int_equal(cfg.seeds[1], -3);
	assert_true(cfg.seeds[2] == INT64_MAX);
	assert_true(cfg.seeds[3] == INT64_MIN);
	assert_int_equal(cfg.seeds[4], 5);
	cfg_release(&cfg);
}

/* Values keep the text of the file: no number or boolean is reinterpreted. */
static void test_cfg_exact_text(void **state)
{
	static const char yaml[] =
	    BASE "grid:\n"
	         "  v: [5e-4, 0.10, 1_000, 0x1F, yes, Off, '0.1', \"null\", '',\n"
	         "      .inf, 1e10, -0, +1, 2024-01-01, 12:30]\n";
	static const char *const want[] = {"5e-4", "0.10", "1_000", "0x1F",       "yes",
	                                   "Off",  "0.1",  "null",  "",           ".inf",
	                                   "1e10", "-0",   "+1",    "2024-01-01", "12:30"};
	struct cfg cfg;
	size_t i;

	(void)state;
	cfg_init(&cfg);
	load_ok(&cfg, yaml);
	assert_int_equal(cfg.grid[0].nvalues, 15);
	for (i = 0; i < 15; i++)
		assert_string_equal(cfg.grid[0].values[i], want[i]);
	cfg_release(&cfg);
}

/*
 * Hostile values are kept byte for byte: they reach tasks through
 * variables, never through #SBATCH lines. Only NUL is refused.
 */
static void test_cfg_hostile_values(void **state)
{
	static const char yaml[] = "name: hostile\n"
	                           "command: run {v}\n"
	                           "grid:\n"
	                           "  v:\n"
	                           "    - \"it's\"\n"
	                           "    - '\"double\"'\n"
	                           "    - \"$(rm -rf /)\"\n"
	                           "    - \"`id`\"\n"
	                           "    - \"line1\\nline2\"\n"
	                           "    - \"a # not a comment\"\n"
	                           "    - 'back\\slash'\n"
	                           "    - \"caf\\u00e9 \\u2713\"\n"
	                           "    - \"tab\\there\"\n"
	                           "    - '${HOME}; echo pwned'\n"
	                           "    - \"%x_%A\"\n"
	                           "    - |\n"
	                           "      block\n"
	                           "        keeps 'indent'\n"
	                           "env:\n"
	                           "  EVIL: \"$(id) `id` \\\"q\\\" \\\\ \\n #\"\n"
	                           "setup: \"echo '$HOME' \\\\\"\n";
	static const char *const want[] = {
	    "it's",         "\"double\"",          "$(rm -rf /)", "`id`",
	    "line1\nline2", "a # not a comment",   "back\\slash", "caf\xc3\xa9 \xe2\x9c\x93",
	    "tab\there",    "${HOME}; echo pwned", "%x_%A",       "block\n  keeps 'indent'\n",
	};
	struct cfg cfg;
	size_t i;

	(void)state;
	cfg_init(&cfg);
	load_ok(&cfg, yaml);
	assert_int_equal(cfg.grid[0].nvalues, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < cfg.grid[0].nvalues; i++)
		assert_string_equal(cfg.grid[0].values[i], want[i]);
	assert_string_equal(cfg.env[0].value, "$(id) `id` \"q\" \\ \n #");
	assert_string_equal(cfg.setup, "echo '$HOME' \\");
	cfg_release(&cfg);
}

static void test_cfg_slurm_forms(void **state)
{
	struct cfg cfg;

	(void)state;
	cfg_init(&cfg);
	load_ok(&cfg, BASE "slurm: {time: \"0:30\", signal: sigterm@20, mem_per_cpu: 1536}\n");
	assert_int_equal(cfg.slurm.time_min, 1);
	assert_string_equal(cfg.slurm.signal, "TERM");
	assert_int_equal(cfg.slurm.signal_seconds, 20);
	assert_int_equal(cfg.slurm.mem_per_cpu_mb, 1536);
	assert_false(cfg.slurm.requeue);
	assert_int_equal(cfg.slurm.max_restarts, 5);
	assert_int_equal(cfg.pack, 1);
	assert_int_equal(cfg.checkpoint.size_mb, 0);
	load_ok(&cfg,
	        BASE "slurm: {requeue: true, max_restarts: 2}\ncheckpoint: {size: 2G, keep: 3}\n");
	assert_true(cfg.slurm.requeue);
	assert_int_equal(cfg.slurm.max_restarts, 2);
	assert_int_equal(cfg.checkpoint.size_mb, 2048);
	assert_int_equal(cfg.checkpoint.keep, 3);
	load_ok(&cfg, BASE "pack: 20\nslurm: {ntasks: 1, time: 5}\n");
	assert_int_equal(cfg.pack, 20);
	assert_int_equal(cfg.retries, 0);
	assert_null(cfg.notify.mail);
	assert_int_equal(cfg.fail_fast, 0);
	load_ok(&cfg, BASE "retries: 2\nretry_on_exit: true\nfail_fast: 3\n"
	                   "notify: {mail: me@lab.org, command: ./done.sh \"$SWEEP_REPORT\"}\n");
	assert_int_equal(cfg.retries, 2);
	assert_true(cfg.retry_on_exit);
	assert_int_equal(cfg.fail_fast, 3);
	assert_string_equal(cfg.notify.mail, "me@lab.org");
	assert_string_equal(cfg.notify.command, "./done.sh \"$SWEEP_REPORT\"");
	load_ok(&cfg, BASE "checkpoint: {size: 512M}\n");
	assert_int_equal(cfg.checkpoint.keep, 1);
	assert_int_equal(cfg.nmetrics, 0);
	load_ok(&cfg, BASE "metrics:\n  accuracy: max\n  loss: min\n");
	assert_int_equal(cfg.nmetrics, 2);
	assert_string_equal(cfg.metrics[0].name, "accuracy");
	assert_true(cfg.metrics[0].maximize);
	assert_int_equal(cfg.metrics[0].line, 4);
	assert_string_equal(cfg.metrics[1].name, "loss");
	assert_false(cfg.metrics[1].maximize);
	assert_true(cfg.metrics[0].has_goal && cfg.metrics[1].has_goal);
	assert_null(cfg.metrics[0].label);
	/* The long form, next to the short one: a label with or without a goal. */
	load_ok(&cfg, BASE "metrics:\n  loss: {goal: min, label: \"train loss (nats)\"}\n"
	                   "  accuracy: max\n  lr: {label: learning rate}\n");
	assert_int_equal(cfg.nmetrics, 3);
	assert_string_equal(cfg.metrics[0].name, "loss");
	assert_true(cfg.metrics[0].has_goal);
	assert_false(cfg.metrics[0].maximize);
	assert_string_equal(cfg.metrics[0].label, "train loss (nats)");
	assert_int_equal(cfg.metrics[0].line, 4);
	assert_true(cfg.metrics[1].has_goal && cfg.metrics[1].maximize);
	assert_null(cfg.metrics[1].label);
	assert_false(cfg.metrics[2].has_goal);
	assert_string_equal(cfg.metrics[2].label, "learning rate");
	load_ok(&cfg, BASE "metrics: {acc: {label: top-1 accuracy (%), goal: max}}\n");
	assert_true(cfg.metrics[0].has_goal && cfg.metrics[0].maximize);
	assert_string_equal(cfg.metrics[0].label, "top-1 accuracy (%)");
	load_ok(&cfg, BASE "slurm: {time: unlimited, signal: \"Usr1@0\", mem: 1025K}\n");
	assert_true(cfg.slurm.time_unlimited);
	assert_int_equal(cfg.slurm.time_min, 0);
	assert_string_equal(cfg.slurm.signal, "USR1");
	assert_int_equal(cfg.slurm.signal_seconds, 0);
	assert_int_equal(cfg.slurm.mem_mb, 2);
	load_ok(&cfg, BASE "slurm: {time: 1100, signal: ALRM@65535, extra: [], partition: "
	                   "\"a b#c\", gpus_per_task: \"a100:2\"}\n");
	assert_int_equal(cfg.slurm.time_min, 1100);
	assert_int_equal(cfg.slurm.signal_seconds, 65535);
	assert_int_equal(cfg.slurm.nextra, 0);
	assert_string_equal(cfg.slurm.partition, "a b#c");
	assert_string_equal(cfg.slurm.gpus_per_task, "a100:2");
	cfg_release(&cfg);
}

static void test_cfg_cases_only(void **state)
{
	struct cfg cfg;

	(void)state;
	cfg_init(&cfg);
	load_ok(&cfg,
	        "name: x\ncommand: run {a} {b}\ncases:\n  - {a: 1, b: 2}\n  - {b: 4, a: 3}\n");
	assert_int_equal(cfg.ncases, 2);
	assert_string_equal(cfg.cases[1].names[0], "b");
	assert_string_equal(cfg.cases[1].values[0], "4");
	assert_int_equal(cfg.cases[1].line, 5);
	cfg_release(&cfg);
}

/* Only identifiers between single braces are placeholders. */
static void test_cfg_placeholders_literal(void **state)
{
	struct cfg cfg;

	(void)state;
	cfg_init(&cfg);
	load_ok(&cfg, "name: x\ncommand: \"awk '{print $1}' {{lr}} { lr } {1} {seed}{index} {\"\n");
	cfg_release(&cfg);
}

/* A cfg can be loaded again (old contents are freed) and freed whole. */
static void test_cfg_reuse_and_free(void **state)
{
	struct cfg *cfg = xmalloc(sizeof(*cfg));

	(void)state;
	cfg_init(cfg);
	load_ok(cfg, BASE "grid: {a: [1, 2]}\nenv: {A: b}\n");
	load_ok(cfg, BASE "zip: {a: [1, 2]}\ncases: [{a: 3}]\nslurm: {extra: [--hold]}\n");
	assert_int_equal(cfg->ngrid, 0);
	assert_int_equal(cfg->nzip, 1);
	cfg_free(cfg);
	cfg_free(NULL);
}

/*
 * cfg_print_keys (sweep __keys, which the test of sweep-file(5) reads) lists
 * the keys the reader accepts: each one, given a value, is never an unknown
 * key, and a key next to them is.
 */
static void test_cfg_print_keys_accepted(void **state)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	cfg_print_keys(f);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, "name\ncommand\n"));
	assert_non_null(strstr(text, "\nslurm.partition\n"));
	assert_non_null(strstr(text, "\ncheckpoint.keep\n"));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *dot = strchr(line, '.');
		char *yaml, *bogus;
		struct cfg cfg;

		n++;
		if (!strcmp(line, "name") || !strcmp(line, "command"))
			continue;
		if (dot) {
			yaml = xstrfmt(BASE "%.*s:\n  %s: ~\n", (int)(dot - line), line, dot + 1);
			bogus =
			    xstrfmt(BASE "%.*s:\n  %s_x: ~\n", (int)(dot - line), line, dot + 1);
		} else {
			yaml = xstrfmt(BASE "%s: ~\n", line);
			bogus = xstrfmt(BASE "%s_x: ~\n", line);
		}
		cfg_init(&cfg);
		capture_errors();
		cfg_load_string(&cfg, "t.yaml", yaml, strlen(yaml));
		if (strstr(captured.buf, "unknown key"))
			fail_msg("'%s' is listed but refused: %s", line, captured.buf);
		release_captured();
		capture_errors();
		assert_int_equal(cfg_load_string(&cfg, "t.yaml", bogus, strlen(bogus)), SWEEP_ERR);
		if (!strstr(captured.buf, "unknown key"))
			fail_msg("'%s_x' is not an unknown key: %s", line, captured.buf);
		release_captured();
		cfg_release(&cfg);
		free(yaml);
		free(bogus);
	}
	assert_true(n > 20);
	free(text);
}

/* An error in the middle of a section leaves nothing half-built behind. */
static void test_cfg_error_after_partial_sections(void **state)
{
	static const char yaml[] = BASE "grid: {a: [1, 2]}\nzip: {b: [1]}\ncases: [{a: 1, b: 2}]\n"
	                                "env: {A: b}\nslurm: {extra: [--hold], partition: p, "
	                                "signal: TERM, mem: 0}\n";
	struct cfg cfg;

	(void)state;
	cfg_init(&cfg);
	capture_errors();
	assert_int_equal(cfg_load_string(&cfg, "t.yaml", yaml, strlen(yaml)), SWEEP_ERR);
	assert_non_null(strstr(captured.buf, "'slurm.mem': bad memory size '0'"));
	release_captured();
	assert_null(cfg.grid);
	assert_null(cfg.slurm.extra);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cfg_results_errors),
	    cmocka_unit_test(test_cfg_sample_errors),
	    cmocka_unit_test(test_cfg_results),
	    cmocka_unit_test(test_cfg_results_formats),
	    cmocka_unit_test(test_cfg_results_step),
	    cmocka_unit_test(test_cfg_signal_when_asked),
	    cmocka_unit_test(test_cfg_structure_errors),
	    cmocka_unit_test(test_cfg_key_errors),
	    cmocka_unit_test(test_cfg_value_errors),
	    cmocka_unit_test(test_cfg_nesting_limit),
	    cmocka_unit_test(test_cfg_long_lists),
	    cmocka_unit_test(test_cfg_missing_file),
	    cmocka_unit_test(test_cfg_unreadable_file),
	    cmocka_unit_test(test_cfg_hostile_files),
	    cmocka_unit_test(test_cfg_file_errors_name_the_path),
	    cmocka_unit_test(test_cfg_full_file),
	    cmocka_unit_test(test_cfg_defaults),
	    cmocka_unit_test(test_cfg_seeds),
	    cmocka_unit_test(test_cfg_exact_text),
	    cmocka_unit_test(test_cfg_hostile_values),
	    cmocka_unit_test(test_cfg_slurm_forms),
	    cmocka_unit_test(test_cfg_cases_only),
	    cmocka_unit_test(test_cfg_placeholders_literal),
	    cmocka_unit_test(test_cfg_reuse_and_free),
	    cmocka_unit_test(test_cfg_print_keys_accepted),
	    cmocka_unit_test(test_cfg_error_after_partial_sections),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
