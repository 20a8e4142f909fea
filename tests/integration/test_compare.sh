#!/bin/bash
# A real sweep of 3 settings x 5 seeds: `report` names the best setting of
# the sweep file's goal and tests the others against it, with p-values that
# match SciPy's Welch test computed here from the tasks' own results; and
# `report --plot` writes PNG, SVG and PDF files that decoders read, with the
# sweep file's axis labels and --title / --no-title.
. "$(dirname "$0")/lib.sh"
cluster_up
mkdir -p "prog dir"
cp "$DATA/compare_task.py" "prog dir/"
submit "$DATA/sweeps/compare.yaml"
wait_sweep 15 400

# --- best and significance ---------------------------------------------------
"$SWEEP" report >report.txt || fail "report exited $?"
cat report.txt >&2
grep -q 'accuracy vs best' report.txt || fail "no 'vs best' column from the sweep file's goal"
grep -q "accuracy: best = highest mean (lr=0.01)" report.txt || fail "lr=0.01 not named best"
"$SWEEP" report --json --goal loss=min >report.json || fail "report --json exited $?"
/usr/bin/python3 - "$(sweep_dir)" <<'PY' || fail "report --json disagrees with SciPy"
import json, os, sys
from scipy import stats
d = sys.argv[1]
rep = json.load(open("report.json"))
assert rep["goals"] == {"accuracy": "max", "loss": "min"}, rep["goals"]
acc = []
for s in range(3):
    acc.append([json.load(open(os.path.join(d, "tasks", str((s * 5 + k) // 1000), str(s * 5 + k), "result.json")))["accuracy"]
                for k in range(5)])
means = [sum(a) / 5 for a in acc]
best = max(range(3), key=lambda s: means[s])
for s, row in enumerate(rep["settings"]):
    m = row["metrics"]["accuracy"]
    assert m["best"] == (s == best), (s, m)
    if s == best:
        assert m["p_vs_best"] is None, m
        continue
    p = stats.ttest_ind(acc[s], acc[best], equal_var=False).pvalue
    assert abs(m["p_vs_best"] - p) <= 1e-9 * p + 1e-300, (s, m["p_vs_best"], p)
    assert m["significant"] == (m["p_vs_best_holm"] < 0.05), m
    print(f"setting {s}: p = {m['p_vs_best']:.3g} (SciPy {p:.3g})")
assert rep["settings"][best]["metrics"]["loss"]["best"], "the lowest loss is the best accuracy"
PY

# A goal for a metric no result has: a warning, no best named.
"$SWEEP" report --goal acc=max >/dev/null 2>err.txt || fail "report --goal acc=max exited $?"
grep -q "a goal for 'acc', but no metric 'acc' is reported: no best is named for it" err.txt ||
	fail "no warning for a goal without its metric: $(cat err.txt)"

# --- CPU and GPU efficiency in rightsize ---------------------------------------
# Under load slurmdbd records a step's CPU time a while after its end: wait
# until every task's batch step has some, then read afresh.
cpu_recorded() {
	! sacct -n -P -j "$(jobs_csv)" -o JobID,TotalCPU 2>/dev/null |
		awk -F'|' '$1 ~ /\.batch$/ && $2 !~ /[1-9]/' | grep -q .
}
for _ in $(seq 60); do cpu_recorded && break; sleep 1; done
# Exit 3: no --mem from tasks of a second that the gatherer never sampled
# (under load); the CPU time is there all the same.
"$SWEEP" rightsize --refresh >rightsize.txt || [ $? = 3 ] || fail "rightsize exited $?"
cat rightsize.txt >&2
grep -q '^CPU: [0-9]*% of the allocated CPUs used' rightsize.txt || fail "no CPU efficiency"
grep -q '^GPU: utilisation and memory not recorded by this cluster' rightsize.txt || fail "GPU line"
"$SWEEP" rightsize --json >rightsize.json || [ $? = 3 ] || fail "rightsize --json exited $?"
python3 - <<'PY' || fail "rightsize --json: cpu_efficiency"
import json
r = json.load(open("rightsize.json"))
rec = r["recommendation"]
assert 0 < rec["cpu_efficiency"] <= 1.5, rec
assert rec["gpu_recorded"] is False and rec["gpu_util_percent"] is None, rec
# A task of a second or less may reach accounting with no step at all (no
# CPU time, no MaxRSS: rightsize says "without MaxRSS"); most have one.
have = [t for t in r["tasks"] if t["total_cpu_us"] is not None]
assert len(have) >= len(r["tasks"]) // 2, r["tasks"]
for t in have:
    assert t["total_cpu_us"] > 0, t
    want = t["total_cpu_us"] / 1e6 / (t["elapsed_s"] * t["cpus"]) if t["elapsed_s"] else None
    assert want is None or abs(t["cpu_efficiency"] - want) < 1e-4 * want, (t, want)
print("cpu efficiency", rec["cpu_efficiency"])
PY

# --- plots -------------------------------------------------------------------
for ext in png svg pdf; do
	"$SWEEP" report --plot "plot out.$ext" >/dev/null || fail "report --plot .$ext exited $?"
	[ -s "plot out.$ext" ] || fail "no plot out.$ext"
done
head -c 8 "plot out.png" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' || fail "PNG magic"
head -c 5 "plot out.pdf" | grep -q '%PDF-' || fail "PDF magic"
grep -q '<svg' "plot out.svg" || fail "no <svg> element"
# Decoders read them: poppler and librsvg render them to PNG.
pdftoppm -png -r 50 -singlefile "plot out.pdf" from-pdf || fail "pdftoppm cannot read the PDF"
rsvg-convert -o from-svg.png "plot out.svg" || fail "rsvg-convert cannot read the SVG"
# The PNG decoded with zlib: its size, and not a blank picture.
python3 - "plot out.png" from-pdf.png from-svg.png <<'PY' || fail "a PNG does not decode"
import struct, sys, zlib
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0], path
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    assert width > 200 and height > 200, (path, width, height)
    assert len(set(raw)) > 8, f"{path}: a blank image"
    print(path, width, "x", height, "decoded")
PY

# --x, --logx and their errors.
"$SWEEP" report --plot x.png --x lr --logx >/dev/null || fail "--x lr --logx"
if "$SWEEP" report --plot x.png --x depth 2>err.txt; then fail "--x depth accepted"; fi
grep -q "no parameter 'depth' to plot against; the sweep has: lr" err.txt || fail "$(cat err.txt)"
if "$SWEEP" report --plot x.jpg 2>err.txt; then fail ".jpg accepted"; fi
grep -q "end its name with .png, .svg or .pdf" err.txt || fail "$(cat err.txt)"
# The PDF keeps its text: the axis and the legend say what they show.
"$SWEEP" report --plot log.pdf --logx >/dev/null || fail "--logx"
pdftotext log.pdf - | tr -s ' \n' ' ' >log.txt
grep -q 'lr (log scale)' log.txt || fail "no log-scale x label: $(cat log.txt)"
grep -q 'best setting' log.txt || fail "no best in the legend: $(cat log.txt)"

# --- figures a paper can take: labels, titles ------------------------------------
# The sweep file labels loss (`loss: {label: ...}`, no goal): its axis says so,
# accuracy's keeps the name; the default title, --title and --no-title.
"$SWEEP" report --plot labels.pdf >/dev/null || fail "--plot with a label exited $?"
pdftotext labels.pdf - | tr -s ' \n' ' ' >labels.txt
grep -q 'train loss (nats)' labels.txt || fail "no label from the sweep file: $(cat labels.txt)"
grep -q "sweep 'compare'" labels.txt || fail "no default title: $(cat labels.txt)"
grep -q "accuracy (goal: max" labels.txt || fail "accuracy's goal lost next to the label"
! grep -q "loss (goal" labels.txt || fail "a label without a goal gave loss a goal"
"$SWEEP" report --plot titled.pdf --title 'Figure 3: accuracy against the learning rate' >/dev/null ||
	fail "--title exited $?"
pdftotext titled.pdf - | tr -s ' \n' ' ' >titled.txt
grep -q 'Figure 3: accuracy against the learning rate' titled.txt || fail "no --title: $(cat titled.txt)"
! grep -q "sweep 'compare'" titled.txt || fail "--title kept the default title"
"$SWEEP" report --plot bare.png --no-title >/dev/null || fail "--no-title exited $?"
# No room is left for a title: the image is one title's height (34 px) shorter.
/usr/bin/python3 - "plot out.png" bare.png <<'PY' || fail "--no-title: the image keeps the title's room"
import struct, sys
h = [struct.unpack(">II", open(p, "rb").read()[16:24])[1] for p in sys.argv[1:]]
assert h[0] - h[1] == 34, h
print("heights", h)
PY
rc=0
"$SWEEP" report --title 'Figure 3' >/dev/null 2>err.txt || rc=$?
[ "$rc" = 2 ] && grep -q -- "--title and --no-title go with --plot" err.txt || fail "--title without --plot: $rc $(cat err.txt)"

# --- learning curves -----------------------------------------------------------
# Seed k logs up to step 10 * (5 + k): the mean runs to step 50, where seed 0 stops.
"$SWEEP" report --curves "{task_dir}/curve.jsonl" --plot "curves out.pdf" >/dev/null || fail "--curves exited $?"
pdftotext "curves out.pdf" - | tr -s ' \n' ' ' >curves.txt
grep -q 'lr=0.01 (5 seeds, to step 50)' curves.txt || fail "legend: $(cat curves.txt)"
grep -q 'accuracy by step' curves.txt || fail "no accuracy panel: $(cat curves.txt)"
grep -q "sweep 'compare': learning curves" curves.txt || fail "no default curves title"
grep -q 'train loss (nats)' curves.txt || fail "curves: no label from the sweep file: $(cat curves.txt)"
"$SWEEP" report --curves "{task_dir}/curve.jsonl" --plot "curves titled.pdf" --title 'Figure 4' >/dev/null ||
	fail "--curves --title exited $?"
pdftotext "curves titled.pdf" - | tr -s ' \n' ' ' >curves-titled.txt
grep -q 'Figure 4' curves-titled.txt && ! grep -q "learning curves" curves-titled.txt ||
	fail "--curves --title: $(cat curves-titled.txt)"
"$SWEEP" report --curves "{task_dir}/curve.jsonl" --plot curves.png >/dev/null || fail "--curves .png exited $?"
python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); assert d[:8] == b"\x89PNG\r\n\x1a\n"' curves.png ||
	fail "curves.png is no PNG"
# A missing curve file fails the task: exit 3 with the reason, and no plot.
mv "$(task_dir_in 7)/curve.jsonl" "$(task_dir_in 7)/kept.jsonl"
rm -f none.png
rc=0
"$SWEEP" report --curves "{task_dir}/curve.jsonl" --plot none.png >/dev/null 2>err.txt || rc=$?
cat err.txt >&2
[ "$rc" = 3 ] || fail "a missing curve file: exit $rc, want 3"
grep -q "task 7 (lr=0.01, seed 2): no curve file '.*/tasks/0/7/curve.jsonl'" err.txt || fail "no reason"
[ ! -e none.png ] || fail "a plot drawn despite the missing curve"
rc=0
"$SWEEP" report --curves "{task_dir}/curve.jsonl" --plot part.pdf --allow-incomplete >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "--allow-incomplete with a missing curve: exit $rc, want 3"
pdftotext part.pdf - | tr -s ' \n' ' ' | grep -q 'lr=0.01 (4 seeds, to step 50)' || fail "4 seeds"
# A path template: the same files by their own name.
"$SWEEP" report --curves '{task_dir}/kept.jsonl' --plot t.png --allow-incomplete >/dev/null 2>err.txt &&
	fail "14 tasks have no kept.jsonl, yet exit 0"
grep -q "task 0 (lr=0.001, seed 0): no curve file" err.txt || fail "$(cat err.txt)"
log "ok"
