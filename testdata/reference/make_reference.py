"""Regenerate the *.expected.json files of testdata/reference from their
inputs with TurnBench's own scorer (README.md of this folder).

    python3 make_reference.py TURNBENCH_CHECKOUT [OUTDIR]

TURNBENCH_CHECKOUT is a checkout of https://github.com/SesameAILabs/turnbench
(the expected files were made at a87ffac20d6303a05db3509d6d48dfec91b8d858)
whose Python dependencies are installed: run this with the checkout's own
environment, e.g. `uv run --project TURNBENCH_CHECKOUT python3 make_reference.py
TURNBENCH_CHECKOUT OUT`. OUTDIR (default: this folder) receives the eight
expected files; compare them with the committed ones (cmp, or
`FLOORBENCH_TURNBENCH_SCORER=TURNBENCH_CHECKOUT go test ./cmd/floorbench -run
TestReferenceRegenerates`).

Nothing of TurnBench is copied here: this program imports the scorer's
functions and feeds them the inputs of this folder instead of its dataset
loader. What it calls:

- gold.expected.json: turnbench.gold.events_for_conversation on each
  conversation of annotations.json, written as `gold export` writes its
  artifact (one json.dumps line) without scorer_sha and dataset_revision;
- score*.expected.json: turnbench.score.score_task per conversation and task
  (as score_conversation calls it), TaskScore.recall, fp_rate, latency(),
  and merge over conversations;
- sweep*.expected.json: turnbench.sweep.load_probs, candidate_thetas, sweep
  and operating_point, with the gold of the folder's gold file in place of
  the dataset's. SweepRow has no tn; it is the task's negative spans over
  all conversations minus fp (fp + tn counts every negative span once).
"""

import dataclasses
import json
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (gold file, predictions file, output) and (gold file, probs file, output).
SCORES = [
    ("gold.expected.json", "predictions.json", "score.expected.json"),
    ("gold-synthetic.json", "predictions-synthetic.json", "score-synthetic.expected.json"),
]
SWEEPS = [
    ("gold.expected.json", "probs-eot.json", "sweep-eot.expected.json"),
    ("gold.expected.json", "probs-int.json", "sweep-int.expected.json"),
    ("gold-synthetic.json", "probs-synthetic-eot.json", "sweep-synthetic-eot.expected.json"),
    ("gold-synthetic.json", "probs-synthetic-int.json", "sweep-synthetic-int.expected.json"),
    ("gold-synthetic.json", "probs-synthetic-int-zeros.json", "sweep-synthetic-int-zeros.expected.json"),
]


@dataclasses.dataclass
class AnnotatedConversation:
    """What turnbench.gold reads of a dataset conversation: its duration and
    the (start, end, label, text) segments of each (speaker, annotator)."""

    duration_s: float
    annotations: dict


def number(x):
    """A float for JSON: NaN becomes null."""
    return None if isinstance(x, float) and math.isnan(x) else x


def write(path, obj, indent):
    text = json.dumps(obj, indent=indent)
    path.write_text(text + "\n", encoding="utf-8")


def make_gold(gold, out):
    data = json.loads((HERE / "annotations.json").read_text(encoding="utf-8"))
    conversations = {}
    for cid, conv in data["conversations"].items():
        tracks = {}
        for speaker in (1, 2):
            for annotator, segments in conv["annotations"][f"speaker_{speaker}"].items():
                tracks[(speaker, annotator)] = [tuple(s) for s in segments]
        events = gold.events_for_conversation(AnnotatedConversation(conv["duration_s"], tracks))
        conversations[cid] = {"duration_s": conv["duration_s"], **dataclasses.asdict(events)}
    artifact = {"tau_pre_s": gold.TAU_PRE_S, "tau_max_s": gold.TAU_MAX_S, "conversations": conversations}
    write(out / "gold.expected.json", artifact, None)


def read_gold(gold, name):
    """A gold file's conversations as turnbench.gold.ConversationEvents."""
    data = json.loads((HERE / name).read_text(encoding="utf-8"))
    out = {}
    for cid, c in data["conversations"].items():
        anchors = lambda key: [gold.AnchorEvent(e["speaker"], e["time_s"]) for e in c[key]]
        spans = lambda key: [gold.Interval(e["speaker"], e["start"], e["end"]) for e in c[key]]
        out[cid] = gold.ConversationEvents(
            anchors("eot_positive_events"), spans("eot_negative_spans"),
            anchors("int_positive_events"), spans("int_negative_spans"),
            eot_excluded=spans("eot_excluded"), int_excluded=spans("int_excluded"))
    return out


def task_score(s):
    latency = s.latency()
    return {"tp": s.tp, "fn": s.fn, "fp": s.fp, "tn": s.tn,
            "recall": number(s.recall), "fp_rate": number(s.fp_rate),
            "latency_ms": {"p10": number(latency.p10), "p50": number(latency.p50), "p90": number(latency.p90)}}


def make_score(score, gold, gold_name, predictions_name, out_name, out):
    events = read_gold(gold, gold_name)
    predictions = json.loads((HERE / predictions_name).read_text(encoding="utf-8"))["predictions"]
    totals = {"eot": score.TaskScore(), "int": score.TaskScore()}
    rows = []
    for p in predictions:
        g = events[p["conversation_id"]]
        per = {
            "eot": score.score_task(g.eot_positive_events, g.eot_negative_spans,
                                    {1: p["speaker_1"]["eot"], 2: p["speaker_2"]["eot"]}, g.eot_excluded),
            "int": score.score_task(g.int_positive_events, g.int_negative_spans,
                                    {1: p["speaker_1"]["interruption"], 2: p["speaker_2"]["interruption"]},
                                    g.int_excluded),
        }
        for task, s in per.items():
            score.merge(totals[task], s)
        rows.append({"conversation_id": p["conversation_id"], **{task: task_score(s) for task, s in per.items()}})
    result = {task: task_score(s) for task, s in totals.items()}
    result["conversations"] = rows
    write(out / out_name, result, 1)


def make_sweep(sweep, gold, data, gold_name, probs_name, out_name, out):
    events = read_gold(gold, gold_name)
    probs = sweep.load_probs(HERE / probs_name)
    # sweep() reads each conversation's gold through turnbench.data.conversation
    # and turnbench.gold.events_for_conversation: serve this folder's gold.
    data.conversation = lambda _dataset, cid: cid
    gold.events_for_conversation = lambda cid: events[cid]
    thetas = sweep.candidate_thetas(probs)
    rows = sweep.sweep(probs, None, thetas)
    op = sweep.operating_point(rows)
    negatives = sum(len(events[e.conversation_id].eot_negative_spans if probs.task == "eot"
                        else events[e.conversation_id].int_negative_spans) for e in probs.probs)

    def row(r):
        return {"theta": r.theta, "recall": number(r.recall), "fp_rate": number(r.fp_rate),
                "false_int_rate": number(r.false_int_rate),
                "tp": r.tp, "fp": r.fp, "fn": r.fn, "tn": negatives - r.fp,
                "latency_ms": {"p10": number(r.lat_p10), "p50": number(r.lat_p50), "p90": number(r.lat_p90)}}

    result = {"task": probs.task, "n_candidates": len(thetas), "rows": [row(r) for r in rows],
              "operating_point": None if op is None else row(op)}
    write(out / out_name, result, 1)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    sys.path.insert(0, str(Path(sys.argv[1]).resolve()))
    out = Path(sys.argv[2]) if len(sys.argv) == 3 else HERE
    out.mkdir(parents=True, exist_ok=True)
    import turnbench.data as data
    import turnbench.gold as gold
    import turnbench.score as score
    import turnbench.sweep as sweep

    make_gold(gold, out)
    for gold_name, predictions_name, out_name in SCORES:
        make_score(score, gold, gold_name, predictions_name, out_name, out)
    for gold_name, probs_name, out_name in SWEEPS:
        make_sweep(sweep, gold, data, gold_name, probs_name, out_name, out)


if __name__ == "__main__":
    main()
