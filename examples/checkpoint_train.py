#!/usr/bin/env python3
"""A long training run that survives time limits and preemption.

Standard library only. It does what a real training script must do to be
interrupted safely:

- saves model state, optimizer state, step and random state together, to a
  temporary file renamed into place, so a checkpoint is whole or absent;
- keeps the newest --keep checkpoints and deletes older ones;
- resumes from the newest readable checkpoint in $SWEEP_TASK_DIR;
- on the warning signal ($SWEEP_SIGNAL, USR1 by default) finishes the step it
  is in, saves, and exits with status 75, so that sweep requeues the task;
- ends with exactly the result an uninterrupted run gets.

Run it by hand to see the uninterrupted result:
    SWEEP_TASK_DIR=/tmp/x SWEEP_RESULT=/tmp/x/result.json python3 checkpoint_train.py
"""
import argparse
import glob
import json
import os
import pickle
import random
import signal
import sys
import time

EXIT_REQUEUE = 75  # EX_TEMPFAIL: stopped on purpose, come back later

stop_requested = False


def on_signal(signum, frame):
    global stop_requested
    stop_requested = True
    print(f"got {signal.Signals(signum).name}: saving at the end of this step", flush=True)


def checkpoints(folder):
    return sorted(glob.glob(os.path.join(folder, "ckpt-*.pkl")))


def save(folder, state, keep):
    path = os.path.join(folder, f"ckpt-{state['step']:08d}.pkl")
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        pickle.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    for old in checkpoints(folder)[:-keep]:
        os.remove(old)


def load_newest(folder):
    for path in reversed(checkpoints(folder)):
        try:
            with open(path, "rb") as f:
                return pickle.load(f), path
        except (OSError, EOFError, pickle.UnpicklingError):
            print(f"skipping unreadable checkpoint {path}", flush=True)
    return None, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--step-seconds", type=float, default=2.0)
    ap.add_argument("--save-every", type=int, default=5)
    ap.add_argument("--keep", type=int, default=3)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    folder = os.environ.get("SWEEP_TASK_DIR", ".")
    signame = os.environ.get("SWEEP_SIGNAL") or "USR1"  # empty: the sweep asks for none
    signal.signal(getattr(signal, "SIG" + signame), on_signal)

    state, path = load_newest(folder)
    if state is None:
        rng = random.Random(args.seed)
        state = {
            "step": 0,
            "weights": [rng.uniform(-1, 1) for _ in range(8)],
            "momentum": [0.0] * 8,
            "rng": rng.getstate(),
        }
        print("starting from scratch", flush=True)
    else:
        print(f"resuming from {os.path.basename(path)} at step {state['step']}", flush=True)
    rng = random.Random()
    rng.setstate(state["rng"])

    while state["step"] < args.steps:
        # one "step": noisy gradient of sum(w^2), SGD with momentum
        for i, w in enumerate(state["weights"]):
            grad = 2.0 * w + rng.gauss(0.0, 0.1)
            state["momentum"][i] = 0.9 * state["momentum"][i] + grad
            state["weights"][i] = w - args.lr * state["momentum"][i]
        state["step"] += 1
        time.sleep(args.step_seconds)
        state["rng"] = rng.getstate()
        if stop_requested:
            save(folder, state, args.keep)
            print(f"saved at step {state['step']}; exiting for requeue", flush=True)
            sys.exit(EXIT_REQUEUE)
        if state["step"] % args.save_every == 0:
            save(folder, state, args.keep)

    loss = sum(w * w for w in state["weights"])
    result = {"loss": loss, "w0": state["weights"][0], "steps": state["step"]}
    out = os.environ.get("SWEEP_RESULT", os.path.join(folder, "result.json"))
    with open(out + ".tmp", "w") as f:
        json.dump(result, f)
    os.replace(out + ".tmp", out)
    print(f"done: loss={loss!r}", flush=True)


if __name__ == "__main__":
    main()
