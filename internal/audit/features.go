package audit

import (
	"fmt"
	"math"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/floor"
)

// Frames is what every feature is computed from: per speaker and grid
// frame, whether the speaker is speaking by the frame's end, the energy of
// the last energyWindow of the channel, and (for corpora with word counts)
// the words of the current vocalization completed by the frame's end.
type Frames struct {
	FrameRate float64
	Speech    [][]bool
	EnergyDB  [][]float32
	Words     [][]uint16 // nil when the corpus has no word counts
}

// energyWindow is the span of audio a frame's energy is measured on, ending
// at the frame's end.
const energyWindow = 0.02

// energyFloorDB maps energies to scores: energyFloorDB dBFS and below score
// 0, full scale scores 1, linearly in dB between.
const energyFloorDB = -100.0

// frameEnergy returns the energy in dBFS of the energyWindow of x ending at
// the end of each of n frames: frame i reads samples up to
// floor((i+1)*rate/fps) only.
func frameEnergy(x []float32, n int, fps float64) []float32 {
	out := make([]float32, n)
	w := int(math.Round(energyWindow * audio.Rate))
	for i := range out {
		end := min(len(x), int(math.Floor(float64(i+1)*audio.Rate/fps)))
		start := max(0, end-w)
		rms := 0.0
		if end > start {
			rms = audio.RMS(x[start:end])
		}
		out[i] = float32(max(energyFloorDB, audio.DB(rms+1e-12)))
	}
	return out
}

// wordCounts spreads each event's words evenly over its extent and returns,
// per frame of speaker k, the words of the current vocalization completed
// by the frame's end (0 outside the speaker's events).
func wordCounts(events []floor.Event, speaker, n int, fps float64) []uint16 {
	out := make([]uint16, n)
	for _, e := range events {
		if e.Speaker != speaker || e.Words <= 0 {
			continue
		}
		first := max(0, int(math.Ceil(e.Start*fps))-1)
		for i := first; i < n; i++ {
			t := float64(i+1) / fps
			if t > e.End {
				break
			}
			if t <= e.Start {
				continue
			}
			done := uint16(min(float64(e.Words), math.Floor(float64(e.Words)*(t-e.Start)/(e.End-e.Start))))
			out[i] = max(out[i], done)
		}
	}
	return out
}

// Kind says what a feature's raw value measures, which fixes its monotone
// map to a score in [0, 1] and how a threshold reads in words.
type Kind int

// The feature kinds.
const (
	Duration  Kind = iota // seconds; score x/(1+x)
	Loudness              // dBFS; score (x-floor)/-floor, clamped
	Quietness             // dBFS; score 1 - the Loudness score
	WordCount             // words; score x/(1+x)
)

// score maps a raw value to [0, 1], monotone (increasing, or decreasing
// for Quietness), so every threshold on the score is a threshold on the
// value.
func (k Kind) score(x float64) float64 {
	switch k {
	case Loudness:
		return min(1, max(0, (x-energyFloorDB)/-energyFloorDB))
	case Quietness:
		return 1 - Loudness.score(x)
	}
	return x / (1 + x)
}

// value inverts score at a threshold: the raw value a feature must pass
// (exceed, or for Quietness fall below) for its score to exceed theta.
func (k Kind) value(theta float64) float64 {
	switch k {
	case Loudness:
		return energyFloorDB - theta*energyFloorDB
	case Quietness:
		return energyFloorDB * theta
	case WordCount:
		// The least whole count whose score exceeds theta; the division
		// can round either way near a whole number.
		n := math.Floor(theta/(1-theta)) + 1
		for n > 0 && k.score(n-1) > theta {
			n--
		}
		for k.score(n) <= theta {
			n++
		}
		return n
	}
	return theta / (1 - theta)
}

// Unit is the unit of the raw value.
func (k Kind) Unit() string {
	switch k {
	case Loudness, Quietness:
		return "dBFS"
	case WordCount:
		return "words"
	}
	return "s"
}

// Feature is one trivial cue: a causal one-number value per speaker and
// frame, and the task it is audited on.
type Feature struct {
	Name  string
	Task  floor.Task
	Kind  Kind
	Label string
	// Rule is a format with one verb for the value at the threshold:
	// "fire after %.2f s of own silence".
	Rule string
	// Oracle features read labels, not audio.
	Oracle bool
	// CrossChannel features measure what the other channels do (the
	// holder's silence): the evidence of a floor change a real detector
	// should use, so they are reported but never flagged. Every other
	// feature reads one channel (other channels at most open its gate).
	CrossChannel bool
	raw          func(f *Frames, k int) []float64
}

// RuleText is the feature's rule at threshold theta, in words.
func (f Feature) RuleText(theta float64) string {
	v := f.Kind.value(theta)
	if f.Kind == WordCount {
		return fmt.Sprintf(f.Rule, int(v))
	}
	return fmt.Sprintf(f.Rule, v)
}

// Track is the feature's score track of speaker k (0-based).
func (f Feature) Track(fr *Frames, k int) []float64 {
	raw := f.raw(fr, k)
	for i, x := range raw {
		raw[i] = f.Kind.score(x)
	}
	return raw
}

// overlapLookback is how long after another channel's speech an own run
// still counts as beginning in overlap.
const overlapLookback = 0.5

// Features lists the audited features, EOT first. Oracle features are
// listed only when withWords is true.
func Features(withWords bool) []Feature {
	fs := []Feature{
		{Name: "own_silence", Task: floor.TaskEOT, Kind: Duration, Label: "own silence",
			Rule: "fire after %.2f s of own silence", raw: ownSilence},
		{Name: "quietness", Task: floor.TaskEOT, Kind: Quietness, Label: "1 - frame energy",
			Rule: "fire once frame energy falls below %.1f dBFS", raw: energy},
		{Name: "run_elapsed", Task: floor.TaskEOT, Kind: Duration, Label: "time since own run began",
			Rule: "fire %.2f s after an own speech run began", raw: runElapsed},
		{Name: "energy", Task: floor.TaskINT, Kind: Loudness, Label: "frame energy",
			Rule: "fire once frame energy exceeds %.1f dBFS", raw: energy},
		{Name: "run_length", Task: floor.TaskINT, Kind: Duration, Label: "own run length",
			Rule: "fire once an own speech run lasts %.2f s", raw: runLength},
		{Name: "overlap_run_length", Task: floor.TaskINT, Kind: Duration, Label: "overlap run length",
			Rule: "fire once an overlapping run lasts %.2f s", raw: overlapRunLength},
		{Name: "overlap_run_end", Task: floor.TaskINT, Kind: Duration, Label: "silence after an overlapping run",
			Rule: "fire %.2f s after an overlapping run ends", raw: overlapRunEnd},
		{Name: "holder_silence", Task: floor.TaskINT, Kind: Duration, Label: "holder silence since claim",
			Rule: "fire once the others have been silent %.2f s into an overlapping run", CrossChannel: true, raw: holderSilence},
	}
	if withWords {
		fs = append(fs, Feature{Name: "words", Task: floor.TaskINT, Kind: WordCount, Label: "words so far (oracle transcript)",
			Rule: "fire at word %d of a vocalization (oracle transcript)", Oracle: true, raw: words})
	}
	return fs
}

// ownSilence: seconds since the speaker's last speech frame, 0 while
// speaking and before the speaker first speaks.
func ownSilence(f *Frames, k int) []float64 {
	out := make([]float64, len(f.Speech[k]))
	last := -1
	for i, s := range f.Speech[k] {
		if s {
			last = i
		} else if last >= 0 {
			out[i] = float64(i-last) / f.FrameRate
		}
	}
	return out
}

func energy(f *Frames, k int) []float64 {
	out := make([]float64, len(f.EnergyDB[k]))
	for i, e := range f.EnergyDB[k] {
		out[i] = float64(e)
	}
	return out
}

// runElapsed: seconds since the onset of the speaker's latest speech run,
// counting on through the silence after it; 0 before the first run.
func runElapsed(f *Frames, k int) []float64 {
	out := make([]float64, len(f.Speech[k]))
	onset := -1
	for i, s := range f.Speech[k] {
		if s && (i == 0 || !f.Speech[k][i-1]) {
			onset = i
		}
		if onset >= 0 {
			out[i] = float64(i-onset+1) / f.FrameRate
		}
	}
	return out
}

// runLength: seconds since the current speech run began, 0 in silence.
func runLength(f *Frames, k int) []float64 {
	return gatedRun(f, k, func(int) bool { return true })
}

// overlapRunLength: runLength for runs that begin while another speaker
// speaks or within overlapLookback after, 0 for other runs.
func overlapRunLength(f *Frames, k int) []float64 {
	return gatedRun(f, k, func(onset int) bool { return othersSpokeIn(f, k, onset-lookbackFrames(f), onset) })
}

func gatedRun(f *Frames, k int, open func(onset int) bool) []float64 {
	out := make([]float64, len(f.Speech[k]))
	onset, gated := -1, false
	for i, s := range f.Speech[k] {
		if !s {
			onset = -1
			continue
		}
		if onset < 0 {
			onset, gated = i, open(i)
		}
		if gated {
			out[i] = float64(i-onset+1) / f.FrameRate
		}
	}
	return out
}

// overlapRunEnd: seconds since the end of the speaker's latest speech run
// that began in overlap (as overlapRunLength gates it), until they speak
// again; 0 elsewhere. The protocol counts a false alarm on a negative only
// inside its extent, so a rule that fires just after a vocalisation ends is
// never penalised on a negative, while after a short claim it still lands
// in the claim's window.
func overlapRunEnd(f *Frames, k int) []float64 {
	out := make([]float64, len(f.Speech[k]))
	onset, gated, ended := -1, false, -1
	for i, s := range f.Speech[k] {
		if s {
			if onset < 0 {
				onset, gated = i, othersSpokeIn(f, k, i-lookbackFrames(f), i)
			}
			ended = -1
			continue
		}
		if onset >= 0 {
			if gated {
				ended = i
			}
			onset = -1
		}
		if ended >= 0 {
			out[i] = float64(i-ended+1) / f.FrameRate
		}
	}
	return out
}

func lookbackFrames(f *Frames) int { return int(math.Round(overlapLookback * f.FrameRate)) }

// othersSpokeIn reports whether a speaker other than k speaks in frames
// [from, to].
func othersSpokeIn(f *Frames, k, from, to int) bool {
	for j, sp := range f.Speech {
		if j == k {
			continue
		}
		for i := max(0, from); i <= to && i < len(sp); i++ {
			if sp[i] {
				return true
			}
		}
	}
	return false
}

// holderSilence: inside an own run that began in overlap, seconds for which
// every other speaker has been silent since the later of the run's onset
// and their last speech; 0 elsewhere. The other channels stand for the
// floor holder: audio does not say who holds the floor.
func holderSilence(f *Frames, k int) []float64 {
	out := make([]float64, len(f.Speech[k]))
	onset, gated, lastOther := -1, false, -1
	for i, s := range f.Speech[k] {
		if othersSpokeIn(f, k, i, i) {
			lastOther = i
		}
		if !s {
			onset = -1
			continue
		}
		if onset < 0 {
			onset, gated = i, othersSpokeIn(f, k, i-lookbackFrames(f), i)
		}
		if gated {
			out[i] = float64(i-max(lastOther, onset-1)) / f.FrameRate
		}
	}
	return out
}

func words(f *Frames, k int) []float64 {
	out := make([]float64, len(f.Words[k]))
	for i, w := range f.Words[k] {
		out[i] = float64(w)
	}
	return out
}
