package evaluate

import (
	"cmp"
	"math"
	"slices"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// Timeline is one scored test event and what surrounds it on every
// channel of its conversation: the score tracks, gold anchors, negative
// spans and excluded intervals of the task, the committed predictions and
// θ (MPTB Figure 12). Waveform is filled only where the audio was at hand
// (the viewer); bundles carry the scores alone.
type Timeline struct {
	Reason       string         `json:"reason"`
	Conversation string         `json:"conversation_id"`
	Event        EventRow       `json:"event"`
	Start        float64        `json:"start"`
	End          float64        `json:"end"`
	Theta        float64        `json:"theta"`
	Step         float64        `json:"step_s"` // seconds between score samples
	Scores       [][]float64    `json:"scores"` // per speaker: the maximum over each step from Start
	Gold         []TimelineItem `json:"gold"`
	Predictions  []TimelineItem `json:"predictions"`
	Waveform     []Envelope     `json:"waveform,omitempty"`
}

// TimelineItem is a gold item (kind positive, negative or excluded) or a
// prediction (kind prediction, Start = End) on one speaker's channel.
type TimelineItem struct {
	Speaker int     `json:"speaker"`
	Kind    string  `json:"kind"`
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
}

// Envelope is one channel's waveform as the minimum and maximum sample
// of each step, in [-1, 1].
type Envelope struct {
	Lo []float64 `json:"lo"`
	Hi []float64 `json:"hi"`
}

// maxTimelineSamples bounds the score samples kept per channel.
const maxTimelineSamples = 400

// timelines picks, deterministically, the test events worth a picture:
// the TP at the median latency, an FP (on a contested hold where the
// corpus labels holds) and an FN, and cuts their timelines.
func timelines(in *Input, task floor.Task, probs *score.ProbsFile, committed map[string][][]float64, theta float64, events []EventRow) []Timeline {
	gold := in.Corpus.Test
	tracks := map[string][][]float64{}
	for _, c := range probs.Conversations {
		tracks[c.ID] = c.Speakers
	}
	var out []Timeline
	for _, p := range chooseEvents(in, task, gold, events) {
		ev := events[p.index]
		g := gold.Find(ev.Conversation)
		start, end := Window(ev, g.Duration)
		tl := CutTimeline(GoldItems(g.Task(task)), tracks[ev.Conversation], probs.FrameRate, committed[ev.Conversation], theta, start, end)
		tl.Reason, tl.Conversation, tl.Event = p.reason, ev.Conversation, ev
		out = append(out, tl)
	}
	return out
}

type pick struct {
	index  int
	reason string
}

func chooseEvents(in *Input, task floor.Task, gold *floor.GoldSet, events []EventRow) []pick {
	var tps []int
	fp, contestedFP, fn := -1, -1, -1
	e := 0
	for _, g := range gold.Conversations {
		tg := g.Task(task)
		a := in.Corpus.Conversations[g.ID].Anatomy
		for i := range len(tg.Positives) + len(tg.Negatives) {
			switch events[e].Outcome {
			case "TP":
				tps = append(tps, e)
			case "FN":
				if fn < 0 {
					fn = e
				}
			case "FP":
				if fp < 0 {
					fp = e
				}
				neg := i - len(tg.Positives)
				if contestedFP < 0 && task == floor.TaskEOT && a != nil && neg < len(a.HoldContested) && a.HoldContested[neg] {
					contestedFP = e
				}
			}
			e++
		}
	}
	var out []pick
	if len(tps) > 0 {
		slices.SortStableFunc(tps, func(a, b int) int { return cmp.Compare(float64(events[a].LatencyMS), float64(events[b].LatencyMS)) })
		out = append(out, pick{tps[(len(tps)-1)/2], "TP at the median latency"})
	}
	switch {
	case contestedFP >= 0:
		out = append(out, pick{contestedFP, "FP on a contested hold"})
	case fp >= 0:
		out = append(out, pick{fp, "FP"})
	}
	if fn >= 0 {
		reason := "FN on an end of turn"
		if task == floor.TaskINT {
			reason = "FN on an interruption"
		}
		out = append(out, pick{fn, reason})
	}
	return out
}

// Window is the stretch of a conversation a timeline of ev shows: 3 s
// before it to 4 s after an anchor (the matching window and the latency
// after it), or 2 s either side of a span, at most 10 s, within the
// conversation.
func Window(ev EventRow, duration float64) (start, end float64) {
	start, end = ev.Start-3, ev.End+4
	if ev.Kind == "negative" {
		start, end = ev.Start-2, min(ev.End+2, ev.Start+8)
	}
	if duration > 0 {
		end = min(end, duration)
	}
	return max(0, start), end
}

// GoldItems lists a task's gold as timeline items: anchors, negative spans
// and excluded intervals.
func GoldItems(g *floor.TaskGold) []TimelineItem {
	var out []TimelineItem
	for _, a := range g.Positives {
		out = append(out, TimelineItem{a.Speaker, "positive", a.Time, a.Time})
	}
	for _, s := range g.Negatives {
		out = append(out, TimelineItem{s.Speaker, "negative", s.Start, s.End})
	}
	for _, s := range g.Excluded {
		out = append(out, TimelineItem{s.Speaker, "excluded", s.Start, s.End})
	}
	return out
}

// CutTimeline keeps what lies in [start, end]: the gold items touching it,
// the predictions in it and the score tracks (frame i at i/fps), reduced
// to at most maxTimelineSamples per channel by keeping each step's
// maximum so that no peak that crossed θ is lost.
func CutTimeline(gold []TimelineItem, tracks [][]float64, fps float64, predictions [][]float64, theta, start, end float64) Timeline {
	tl := Timeline{Start: start, End: end, Theta: theta, Gold: []TimelineItem{}, Predictions: []TimelineItem{}}
	for _, it := range gold {
		if it.End >= start && it.Start <= end {
			tl.Gold = append(tl.Gold, it)
		}
	}
	for k, ps := range predictions {
		for _, t := range ps {
			if t >= start && t <= end {
				tl.Predictions = append(tl.Predictions, TimelineItem{k + 1, "prediction", t, t})
			}
		}
	}
	if fps <= 0 {
		return tl
	}
	first, last := int(math.Ceil(start*fps)), int(math.Floor(end*fps))
	per := max(1, (last-first+maxTimelineSamples)/maxTimelineSamples)
	tl.Step = float64(per) / fps
	for _, track := range tracks {
		var s []float64
		for f := first; f <= last && f < len(track); f += per {
			m := track[f]
			for _, v := range track[f:min(f+per, len(track), last+1)] {
				m = max(m, v)
			}
			s = append(s, m)
		}
		tl.Scores = append(tl.Scores, s)
	}
	tl.Start = float64(first) / fps
	return tl
}
