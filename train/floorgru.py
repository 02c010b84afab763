"""Train floorgru, floorbench's own floor-aware detector, and export it to ONNX.

The model reads one speaker's channel and the sum of the others (speaker
versus rest, as VAP does), computes 40 log-mel bins every 10 ms of each
inside the graph, and runs one GRU over both, giving the probabilities of
an end of turn (EOT) and of an interruption (INT) of that speaker at 50 Hz.
Its ONNX contract is the onnx family's: audio [batch, 2, 1696] (100 ms of
new samples and the 96 before them that the first window needs), the GRU
state [1, batch, 128] in and out (an ensemble's: its members' side by
side, [1, batch, 512] for the shipped four), probs [batch, 5, 2]
(models/floorgru).

Usage (scripts/train.sh runs it):
  python3 train/floorgru.py train --corpus DIR --gold GOLD.json --out DIR
      [--rest | --no-rest] [--epochs N] [--seed N] [--hidden N]
      [--eot-from S] [--int-from S] [--hold-weight W] [--int-other-weight W] [--neg-reach S]
      [--int-quiet S] [--int-wait S] [--eot-voiced S] [--eot-wait S]
      (the defaults are the shipped recipe, models/floorgru/README.md)
  python3 train/floorgru.py ensemble --member DIR --member DIR... --out DIR
  python3 train/floorgru.py record --model DIR --corpus DIR --conversation ID --out FILE

Only numpy and torch (Debian's python3-torch); floorbench's tests never run it.
"""

import argparse
import json
import math
import os
import sys
import time
import wave

import numpy as np
import torch
from torch import nn

RATE = 16000
HOP = 1600           # samples a model step adds (100 ms)
WIN = 256            # STFT window (16 ms)
SUB = 160            # STFT hop (10 ms): two per output frame
CONTEXT = WIN - SUB  # samples before a step the first window reads
FRAME = HOP + CONTEXT
FPS = 50             # output frames a second
OUT_HOP = RATE // FPS
STEP_FRAMES = HOP // OUT_HOP
MELS = 40
HIDDEN = 128


def mel_filters(n_fft=WIN, n_mels=MELS, fmin=50.0, fmax=8000.0):
    """Triangular filters on the HTK mel scale, each normalised to area 1."""
    def mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def hz(m):
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)

    bins = np.linspace(0, RATE / 2, n_fft // 2 + 1)
    edges = hz(np.linspace(mel(fmin), mel(fmax), n_mels + 2))
    fb = np.zeros((n_mels, len(bins)), dtype=np.float64)
    for m in range(n_mels):
        lo, mid, hi = edges[m], edges[m + 1], edges[m + 2]
        up = (bins - lo) / (mid - lo)
        down = (hi - bins) / (hi - mid)
        fb[m] = np.maximum(0, np.minimum(up, down))
        fb[m] /= max(fb[m].sum(), 1e-9)
    return fb.astype(np.float32)


class FrontEnd(nn.Module):
    """Log-mel features of each channel: a fixed DFT as a strided convolution."""

    def __init__(self):
        super().__init__()
        n = np.arange(WIN)
        window = 0.5 - 0.5 * np.cos(2 * np.pi * n / WIN)  # periodic Hann
        k = np.arange(WIN // 2 + 1)[:, None]
        re = np.cos(2 * np.pi * k * n / WIN) * window
        im = -np.sin(2 * np.pi * k * n / WIN) * window
        dft = np.concatenate([re, im])[:, None, :].astype(np.float32)
        self.register_buffer("dft", torch.from_numpy(dft))
        self.register_buffer("mel", torch.from_numpy(mel_filters()))
        self.register_buffer("mean", torch.zeros(MELS))
        self.register_buffer("std", torch.ones(MELS))

    def forward(self, x, fast=False):
        """x [B, C, N] -> features [B, F, C*2*MELS], F = ((N-WIN)//SUB+1)//2.
        fast computes the same power spectrum with an FFT (training's
        features; the exported graph keeps the convolution)."""
        b, c, n = x.shape
        if fast:
            window = torch.tensor(0.5 - 0.5 * np.cos(2 * np.pi * np.arange(WIN) / WIN), dtype=torch.float32)
            spec = torch.fft.rfft(x.reshape(b * c, n).unfold(-1, WIN, SUB) * window, dim=-1)
            power = (spec.real ** 2 + spec.imag ** 2).transpose(1, 2)
        else:
            spec = nn.functional.conv1d(x.reshape(b * c, 1, n), self.dft, stride=SUB)
            half = WIN // 2 + 1
            power = spec[:, :half] ** 2 + spec[:, half:] ** 2
        logmel = torch.log(torch.matmul(self.mel, power) + 1e-6)
        logmel = (logmel - self.mean[:, None]) / self.std[:, None]
        frames = logmel.shape[-1] // 2 * 2
        # [B*C, MELS, 2F] -> [B, F, C, 2, MELS] -> [B, F, C*2*MELS]
        feat = logmel[:, :, :frames].reshape(b, c, MELS, frames // 2, 2)
        return feat.permute(0, 3, 1, 4, 2).reshape(b, frames // 2, c * 2 * MELS)


class FloorGRU(nn.Module):
    """Speaker-vs-rest log-mel features into one GRU; EOT and INT logits at 50 Hz."""

    def __init__(self, rest=True, hidden=HIDDEN):
        super().__init__()
        self.rest = rest
        self.hidden = hidden
        self.front = FrontEnd()
        self.proj = nn.Linear(2 * 2 * MELS, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 2)

    def logits(self, feat, h=None):
        if not self.rest:
            # The ablation: the rest's half of every frame is zero.
            feat = torch.cat([feat[..., : 2 * MELS], torch.zeros_like(feat[..., 2 * MELS:])], dim=-1)
        z, h = self.gru(torch.relu(self.proj(feat)), h)
        return self.head(z), h

    def probs(self, feat, h=None):
        z, h = self.logits(feat, h)
        return torch.sigmoid(z), h


class Ensemble(nn.Module):
    """Several FloorGRUs trained alike with different seeds behind their one
    front end (the same mel bins and normalisation: they read the same
    rows): the mean of their probabilities, their states side by side in one
    [1, batch, members x hidden] tensor."""

    def __init__(self, members):
        super().__init__()
        for m in members[1:]:
            for name, buf in m.front.named_buffers():
                if not torch.equal(buf, getattr(members[0].front, name)):
                    sys.exit(f"ensemble: members differ in front.{name}; want members trained on the same rows")
        self.members = nn.ModuleList(members)
        self.front = members[0].front
        self.hidden = sum(m.hidden for m in members)

    def probs(self, feat, h=None):
        hs = [None] * len(self.members) if h is None else torch.split(h, [m.hidden for m in self.members], dim=2)
        ps, outs = zip(*(m.probs(feat, hi) for m, hi in zip(self.members, hs)))
        return torch.stack(ps).mean(0), torch.cat(outs, dim=2)


class Step(nn.Module):
    """One model step as exported: the ONNX contract of models/floorgru."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, audio, h):
        return self.model.probs(self.model.front(audio), h)


def read_wav(path):
    with wave.open(path, "rb") as w:
        if w.getframerate() != RATE or w.getsampwidth() != 2 or w.getnchannels() != 1:
            sys.exit(f"{path}: want 16 kHz 16-bit mono")
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0


def rows_of(corpus, conv):
    """Each speaker's (own, rest) channels, rest the others' sum clipped to [-1, 1]."""
    chans = [read_wav(os.path.join(corpus, conv["id"], f"speaker_{k + 1}.wav")) for k in range(conv["speakers"])]
    total = np.sum(chans, axis=0)
    return [np.stack([c, np.clip(total - c, -1, 1)]) for c in chans]


def features(front, row, fast=False):
    """The features of a whole channel pair as the steps read them: CONTEXT zeros first."""
    x = torch.from_numpy(np.concatenate([np.zeros((2, CONTEXT), np.float32), row], axis=1))
    with torch.no_grad():
        return front(x[None], fast=fast)[0]


# Targets (docs/protocol.md#mptb-generated). The scorer credits the first
# rising edge anywhere in [anchor - tau_pre, anchor + tau_max], charges one
# that lands in a negative's stretch, and lets every other prediction cost
# nothing. What tells a yield from a hold (the others taking up the floor,
# the pause outlasting a hold's) or a claim from a backchannel (the holder
# falling silent) arrives a few hundred ms after the anchor, so a frame
# decided at t (its end) is positive from pos_from after an anchor to
# pos_after after it (tau_pre before the speaker's next anchor of the task
# at the latest); the frames from tau_pre before the anchor to pos_from are
# not scored (the evidence is not there yet), nor those from pos_after to
# ignore_after, nor an excluded interval's. A negative (hold, backchannel)
# is charged from tau_pre before it to its end under the span window and to
# tau_max after its onset under the anchored one (docs/protocol.md#negative-window);
# its frames are negative over that stretch, the anchored one when neg_reach
# is tau_max, and weigh neg_weight; a positive weighs pos_weight; every other
# frame is negative at other_weight, low on INT, where speech that opens a
# turn after a pause costs nothing. Each pair is (EOT, INT).
#
# A claim's INT evidence is the holder falling silent, which comes at a
# different time after each onset (0.3 to 1 s on the train preset). With
# int_quiet > 0 a claim's positive frames start where the others' sum has
# been quiet int_quiet s since the onset (at pos_from at the soonest, at
# int_wait after the onset at the latest: an overlap that long is evidence
# too), not at a fixed pos_from, and the frames before are not scored: a
# frame the holder still talks over is a backchannel's twin, and teaching it
# positive teaches the model to fire on backchannels. Quiet is the rest's
# 20 ms RMS below quiet_ratio times its row's 10th percentile (its noise);
# the labels may read the whole row, the model never does. int_quiet 0
# is v4's recipe (positive from pos_from after the onset).
#
# With eot_voiced > 0 a yield's EOT positives start eot_voiced after
# another speaker has taken the floor up (taken_up; from events.json, which
# only the targets read), at pos_from at the soonest and eot_wait at the
# latest, so that silence alone is not taught as a yield (runs n and o of
# models/floorgru; the shipped recipe keeps it off).
#
# The shipped recipe (since v6) starts a yield's EOT positives 1.5 s after
# its end (v5: 1.0 s) and weighs a hold's frames 40 (v5: 20): runs r1 to r4
# of models/floorgru, chosen on two train-preset draws no run trained on;
# v7, the shipped file, is the four runs joined (scripts/train.sh).
TAU_PRE = 0.25
RECIPE = {
    "pos_from": (1.5, 0.3), "pos_after": 2.5, "ignore_after": 4.0, "neg_reach": 3.0,
    "neg_weight": (40.0, 3.0), "pos_weight": (5.0, 10.0), "other_weight": (1.0, 0.3),
    "int_quiet": 0.4, "int_wait": 1.5, "quiet_ratio": 4.0,
    "eot_voiced": 0.0, "eot_wait": 2.0,
}


def rest_quiet(rest, recipe=RECIPE):
    """Per output frame, whether the others' sum is quiet (for the targets only)."""
    n = len(rest) // OUT_HOP
    rms = np.sqrt(np.mean(rest[: n * OUT_HOP].reshape(n, OUT_HOP).astype(np.float64) ** 2, axis=1))
    return rms < recipe["quiet_ratio"] * max(np.quantile(rms, 0.1), 1e-6)


def evidence(anchor, quiet, recipe):
    """Seconds after a claim's onset its positive frames start (see above)."""
    need = int(round(recipe["int_quiet"] * FPS))
    first, last = int(anchor * FPS), min(len(quiet), int((anchor + recipe["int_wait"]) * FPS))
    run = 0
    for i in range(first, last):
        run = run + 1 if quiet[i] else 0
        if run >= need:
            return max(recipe["pos_from"][1], (i + 1) / FPS - anchor)
    return recipe["int_wait"]


def taken_up(anchor, turns, recipe):
    """Seconds after a yield's turn end its EOT positive frames start with
    eot_voiced > 0: eot_voiced after another speaker holds the floor (the
    end itself when another's turn or interruption overlaps it, else the
    next one's onset), at pos_from at the soonest and eot_wait at the
    latest (a conversation's last turn: eot_wait)."""
    up = [max(start, anchor) for start, end in turns if end >= anchor and start <= anchor + recipe["eot_wait"]]
    if not up:
        return recipe["eot_wait"]
    return min(recipe["eot_wait"], max(recipe["pos_from"][0], min(up) - anchor + recipe["eot_voiced"]))


def targets(gold, speaker, frames, quiet, recipe=RECIPE, turns=()):
    """One row's targets and weights; quiet is rest_quiet of its others' sum,
    turns the others' turns and interruptions, (start, end) (events.json)."""
    t = (np.arange(frames) + 1) / FPS
    y = np.zeros((frames, 2), np.float32)
    w = np.tile(np.asarray(recipe["other_weight"], np.float32), (frames, 1))
    for col, task in enumerate(["eot", "int"]):
        anchors = sorted(e["time_s"] for e in gold[f"{task}_positive_events"] if e["speaker"] == speaker)
        ends = [min(a + recipe["pos_after"], b - TAU_PRE) for a, b in zip(anchors, anchors[1:] + [math.inf])]
        for a, end in zip(anchors, ends):
            w[(t > end) & (t <= a + recipe["ignore_after"]), col] = 0
        for s in gold[f"{task}_negative_spans"]:
            if s["speaker"] == speaker:
                reach = max(s["end"], s["start"] + recipe["neg_reach"])
                w[(t >= s["start"] - TAU_PRE) & (t <= reach), col] = recipe["neg_weight"][col]
        for a, end in zip(anchors, ends):
            start = recipe["pos_from"][col]
            if col == 1 and recipe["int_quiet"] > 0:
                start = evidence(a, quiet, recipe)
            if col == 0 and recipe["eot_voiced"] > 0:
                start = taken_up(a, turns, recipe)
            w[(t >= a - TAU_PRE) & (t < a + start), col] = 0
            pos = (t >= a + start) & (t <= end)
            y[pos, col], w[pos, col] = 1, recipe["pos_weight"][col]
        for s in gold[f"{task}_excluded"]:
            if s["speaker"] == speaker:
                w[(t >= s["start"]) & (t <= s["end"]), col] = 0
    return y, w


def load(corpora, gold_paths, front, recipe):
    """The rows of every corpus (each with its gold): dev rows train, test rows are held out."""
    data = {"dev": [], "test": []}
    for corpus, gold_path in zip(corpora, gold_paths):
        load_corpus(corpus, gold_path, front, data, recipe)
    return data


def load_corpus(corpus, gold_path, front, data, recipe):
    with open(os.path.join(corpus, "corpus.json")) as f:
        manifest = json.load(f)
    with open(gold_path) as f:
        gold = json.load(f)["conversations"]
    for conv in manifest["conversations"]:
        events = []
        if recipe["eot_voiced"] > 0:
            with open(os.path.join(corpus, conv["id"], "events.json")) as f:
                events = json.load(f)["events"]
        for k, row in enumerate(rows_of(corpus, conv)):
            feat = features(front, row, fast=True)
            frames = min(feat.shape[0], row.shape[1] // OUT_HOP)
            turns = [(e["start"], e["end"]) for e in events if e["speaker"] != k + 1 and e["kind"] in ("TURN", "INTERRUPTION")]
            y, w = targets(gold[conv["id"]], k + 1, frames, rest_quiet(row[1], recipe), recipe, turns)
            data[conv["split"]].append((feat[:frames], torch.from_numpy(y), torch.from_numpy(w)))


def normalise(front, data):
    """Per-bin mean and deviation of the training rows' log-mel, baked into
    the front end and applied to the features load computed without them."""
    n, total, squares = 0, torch.zeros(MELS, dtype=torch.float64), torch.zeros(MELS, dtype=torch.float64)
    for x, _, _ in data["dev"]:
        f = x.reshape(-1, MELS).double()
        n, total, squares = n + f.shape[0], total + f.sum(0), squares + (f * f).sum(0)
    mean = (total / n).float()
    std = (squares / n - (total / n) ** 2).sqrt().float() + 1e-3
    front.mean.copy_(mean)
    front.std.copy_(std)
    for rows in data.values():
        for x, _, _ in rows:
            x.copy_(((x.reshape(-1, MELS) - mean) / std).reshape(x.shape))


def batches(rows, crop, batch, gen, recipe):
    """Random crops of `crop` frames (whole rows when shorter), `batch` at a time.
    A third of the crops start at the conversation's start, where the state
    is zero as it is when floorbench runs the model; a third hold an INT
    frame (a claim's positive or a backchannel's negative) at a random place
    past their first quarter, where the row has one: claims are rare."""
    order = torch.randperm(len(rows), generator=gen).tolist()
    for i in range(0, len(order), batch):
        xs, ys, ws = [], [], []
        for j in order[i:i + batch]:
            x, y, w = rows[j]
            last = max(0, x.shape[0] - crop)
            start = int(torch.randint(0, last + 1, (1,), generator=gen))
            u = torch.rand(1, generator=gen).item()
            focus = torch.nonzero((y[:, 1] > 0) | (w[:, 1] == recipe["neg_weight"][1])).flatten()
            if u < 1 / 3:
                start = 0
            elif u < 2 / 3 and len(focus):
                at = int(focus[int(torch.randint(0, len(focus), (1,), generator=gen))])
                start = at - crop // 4 - int(torch.randint(0, crop // 2, (1,), generator=gen))
                start = min(max(0, start), last)
            xs.append(x[start:start + crop])
            ys.append(y[start:start + crop])
            ws.append(w[start:start + crop])
        n = min(x.shape[0] for x in xs)
        yield torch.stack([x[:n] for x in xs]), torch.stack([y[:n] for y in ys]), torch.stack([w[:n] for w in ws])


def loss_of(model, x, y, w):
    z, _ = model.logits(x)
    per = nn.functional.binary_cross_entropy_with_logits(z, y, reduction="none") * w
    return per.sum() / w.sum(), per.sum(dim=(0, 1)) / w.sum(dim=(0, 1))


def evaluate(model, rows):
    with torch.no_grad():
        total, n, task = 0.0, 0.0, torch.zeros(2)
        for x, y, w in rows:
            z, _ = model.logits(x[None])
            per = nn.functional.binary_cross_entropy_with_logits(z[0], y, reduction="none") * w
            total += per.sum().item()
            n += w.sum().item()
            task += per.sum(0)
        return total / n, (task / n).tolist()


def train(args):
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(args.seed)
    started = time.time()
    if len(args.corpus) != len(args.gold):
        sys.exit(f"train: {len(args.corpus)} --corpus but {len(args.gold)} --gold; want one gold per corpus")
    recipe = dict(RECIPE, pos_from=(args.eot_from, args.int_from), neg_reach=args.neg_reach,
                  neg_weight=(args.hold_weight, RECIPE["neg_weight"][1]),
                  other_weight=(RECIPE["other_weight"][0], args.int_other_weight),
                  int_quiet=args.int_quiet, int_wait=args.int_wait,
                  eot_voiced=args.eot_voiced, eot_wait=args.eot_wait)
    model = FloorGRU(rest=args.rest, hidden=args.hidden)
    data = load(args.corpus, args.gold, model.front, recipe)
    normalise(model.front, data)
    print(f"{len(data['dev'])} training rows, {len(data['test'])} held out; "
          f"{sum(p.numel() for p in model.parameters())} parameters; features in {time.time() - started:.0f} s", flush=True)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
    log = []
    for epoch in range(args.epochs):
        model.train()
        run, count = 0.0, 0
        for x, y, w in batches(data["dev"], args.crop, args.batch, gen, recipe):
            loss, _ = loss_of(model, x, y, w)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            run, count = run + loss.item(), count + 1
        sched.step()
        model.eval()
        entry = {"epoch": epoch + 1, "train_loss": round(run / count, 5)}
        if (epoch + 1) % 5 == 0 or epoch + 1 == args.epochs:  # held-out loss costs a third of an epoch
            held, per_task = evaluate(model, data["test"])
            entry.update({"held_out_loss": round(held, 5), "held_out_eot": round(per_task[0], 5),
                          "held_out_int": round(per_task[1], 5)})
        entry["seconds"] = round(time.time() - started)
        log.append(entry)
        print(json.dumps(entry), flush=True)
    os.makedirs(args.out, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(args.out, "floorgru.pt"))
    export(model, os.path.join(args.out, "floorgru.onnx"))
    with open(os.path.join(args.out, "training.json"), "w") as f:
        json.dump({"seed": args.seed, "rest": args.rest, "hidden": args.hidden, "targets": recipe,
                   "epochs": args.epochs, "threads": args.threads,
                   "crop": args.crop, "batch": args.batch, "lr": args.lr,
                   "torch": torch.__version__, "seconds": round(time.time() - started), "log": log}, f, indent=1)


def export(model, path):
    model.eval()
    step = Step(model)
    torch.onnx.export(step, (torch.zeros(1, 2, FRAME), torch.zeros(1, 1, model.hidden)), path,
                      input_names=["audio", "h"], output_names=["probs", "h_out"], opset_version=14,
                      dynamic_axes={"audio": {0: "batch"}, "h": {1: "batch"}, "probs": {0: "batch"}, "h_out": {1: "batch"}})


def load_model(path):
    """A trained model or ensemble from its folder (floorgru.pt,
    training.json), and the run training.json records."""
    with open(os.path.join(path, "training.json")) as f:
        run = json.load(f)
    if "members" in run:
        model = Ensemble([FloorGRU(rest=m["rest"], hidden=m["hidden"]) for m in run["members"]])
    else:
        model = FloorGRU(rest=run["rest"], hidden=run.get("hidden", 64))  # runs before v4 recorded no size: 64
    model.load_state_dict(torch.load(os.path.join(path, "floorgru.pt")))
    model.eval()
    return model, run


def ensemble(args):
    """Joins trained models into one (Ensemble) and exports it."""
    if len(args.member) < 2:
        sys.exit("ensemble: want two --member or more")
    runs, members = [], []
    for path in args.member:
        model, run = load_model(path)
        if "members" in run:
            sys.exit(f"ensemble: {path} is an ensemble already; want single models")
        runs.append(run)
        members.append(model)
    model = Ensemble(members)
    os.makedirs(args.out, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(args.out, "floorgru.pt"))
    export(model, os.path.join(args.out, "floorgru.onnx"))
    with open(os.path.join(args.out, "training.json"), "w") as f:
        json.dump({"hidden": model.hidden, "members": runs}, f, indent=1)


def record(args):
    """The trained model's probabilities on one conversation, run over the
    whole channels at once (not step by step as floorbench runs the ONNX
    file): the values a Go test holds floorbench's run of the file to."""
    torch.set_num_threads(args.threads)
    with open(os.path.join(args.corpus, "corpus.json")) as f:
        conv = next(c for c in json.load(f)["conversations"] if c["id"] == args.conversation)
    model, _ = load_model(args.model)
    out = {"conversation_id": conv["id"], "frame_rate_hz": FPS, "speakers": []}
    for row in rows_of(args.corpus, conv):
        steps = row.shape[1] // HOP  # the values floorbench's steps give
        with torch.no_grad():
            p, _ = model.probs(features(model.front, row)[None, : steps * STEP_FRAMES])
        p = p[0].numpy()
        out["speakers"].append({"eot": [round(float(v), 6) for v in p[:, 0]],
                                "int": [round(float(v), 6) for v in p[:, 1]]})
    with open(args.out, "w") as f:
        json.dump(out, f)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("--corpus", required=True, action="append", help="a training corpus (repeatable)")
    t.add_argument("--gold", required=True, action="append",
                   help="floorbench gold --corpus DIR -o json (every split), one per --corpus, in their order")
    t.add_argument("--out", required=True)
    t.add_argument("--rest", action=argparse.BooleanOptionalAction, default=True)
    t.add_argument("--hidden", type=int, default=HIDDEN, help="GRU units")
    t.add_argument("--eot-from", type=float, default=RECIPE["pos_from"][0],
                   help="s after a yield's turn end its EOT positive frames start (earlier ones from tau_pre before are not scored)")
    t.add_argument("--int-from", type=float, default=RECIPE["pos_from"][1], help="the same for a claim's onset on INT")
    t.add_argument("--hold-weight", type=float, default=RECIPE["neg_weight"][0], help="an EOT negative (hold) frame's weight")
    t.add_argument("--int-other-weight", type=float, default=RECIPE["other_weight"][1],
                   help="an INT frame's weight outside every positive, negative and ignored stretch")
    t.add_argument("--neg-reach", type=float, default=RECIPE["neg_reach"],
                   help="s after a negative's onset its frames stay negative (3.0: the anchored window; 0: the span only)")
    t.add_argument("--int-quiet", type=float, default=RECIPE["int_quiet"],
                   help="s the others must be quiet after a claim's onset before its INT positives start (0: --int-from after the onset)")
    t.add_argument("--int-wait", type=float, default=RECIPE["int_wait"],
                   help="s after a claim's onset its INT positives start at the latest with --int-quiet")
    t.add_argument("--eot-voiced", type=float, default=RECIPE["eot_voiced"],
                   help="s after another speaker takes a yielded floor up its EOT positives start (0: --eot-from after the turn end)")
    t.add_argument("--eot-wait", type=float, default=RECIPE["eot_wait"],
                   help="s after a yield's turn end its EOT positives start at the latest with --eot-voiced")
    t.add_argument("--epochs", type=int, default=5)
    t.add_argument("--crop", type=int, default=750, help="frames per training crop (15 s)")
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("--seed", type=int, default=4504)
    t.add_argument("--threads", type=int, default=2)
    e = sub.add_parser("ensemble")
    e.add_argument("--member", required=True, action="append", help="a trained model's folder (repeatable)")
    e.add_argument("--out", required=True)
    r = sub.add_parser("record")
    r.add_argument("--model", required=True)
    r.add_argument("--corpus", required=True)
    r.add_argument("--conversation", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    {"train": train, "ensemble": ensemble, "record": record}[args.cmd](args)


if __name__ == "__main__":
    main()
