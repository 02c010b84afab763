package corpus

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
)

// Stats is a corpus's composition, the fields of `corpus stats -o json`.
// Counts are those of the MPTB gold (docs/protocol.md#mptb-generated).
type Stats struct {
	Conversations      int     `json:"conversations"`
	Dev                int     `json:"dev"`
	Test               int     `json:"test"`
	Hours              float64 `json:"hours"`
	EOTPositives       int     `json:"eot_positives"`
	HoldNegatives      int     `json:"hold_negatives"`
	INTPositives       int     `json:"int_positives"`
	INTNegatives       int     `json:"int_negatives"`
	INTExcluded        int     `json:"int_excluded"`
	OverlapEvents      int     `json:"overlap_events"`
	OverlapRealised    float64 `json:"overlap_realised"`
	ContestedHoldShare float64 `json:"contested_hold_share"`
	// How holders and listeners react to overlap (docs/corpora.md#timing-and-hard-cases),
	// measured on the audio: the share of BACKCHANNEL and NON_CONTENT
	// events that start while their holder (floor_before) is silent, the
	// turns' restarts, and per non-floor-taking event that starts over its
	// holder's speech, the share its holder restarts at; the share of
	// INTERRUPTION events the claimer's turn follows after a pause.
	ListenerInPauses float64                `json:"listener_in_pauses"`
	Restarts         int                    `json:"restarts"`
	RestartShare     float64                `json:"restart_share"`
	ClaimPauses      float64                `json:"claim_pauses"`
	Voices           map[string][]string    `json:"voices"`
	ByType           map[string]*GroupStats `json:"by_type"`
	BySpeakers       map[string]*GroupStats `json:"by_speakers"`
}

// GroupStats describes the conversations of one interaction type or one
// speaker count.
type GroupStats struct {
	Conversations      int     `json:"conversations"`
	Hours              float64 `json:"hours"`
	TurnMean           float64 `json:"turn_mean_s"`
	EventsPerMin       float64 `json:"events_per_min"`
	INTPerMin          float64 `json:"int_per_min"`
	BackchannelsPerMin float64 `json:"backchannels_per_min"`
	EOTPositives       int     `json:"eot_positives"`
	HoldNegatives      int     `json:"hold_negatives"`
	INTPositives       int     `json:"int_positives"`
	INTNegatives       int     `json:"int_negatives"`

	seconds, turnSeconds     float64
	turns, events, ints, bcs int
}

// ComputeStats reads a corpus's manifest, event logs and audio. Overlap
// realisation is measured on the audio: an overlap event (one that starts
// while another speaker is speaking) is realised when both speakers'
// channels carry speech energy at the same moment inside it.
func ComputeStats(dir string, lim limits.Limits) (*Stats, error) {
	c, err := Open(dir, lim)
	if err != nil {
		return nil, err
	}
	if c.Manifest.Kind == KindTurnBench {
		return nil, fmt.Errorf("%s: a turnbench corpus has no event logs (its stats are ComputeTurnBenchStats')", dir)
	}
	s := &Stats{Voices: map[string][]string{"dev": {}, "test": {}}, ByType: map[string]*GroupStats{}, BySpeakers: map[string]*GroupStats{}}
	var holds, contested, realised int
	var r reactionCounts
	for _, conv := range c.Manifest.Conversations {
		log, err := c.Events(conv)
		if err != nil {
			return nil, err
		}
		s.Conversations++
		if conv.Split == string(dialogue.Dev) {
			s.Dev++
		} else {
			s.Test++
		}
		for _, v := range conv.Voices {
			if !slices.Contains(s.Voices[conv.Split], v) {
				s.Voices[conv.Split] = append(s.Voices[conv.Split], v)
			}
		}
		g := floor.DeriveMPTB(conv.ID, conv.Duration, log.Events, floor.DefaultInterruptedGuard)
		groups := []*GroupStats{group(s.ByType, conv.InteractionType), group(s.BySpeakers, strconv.Itoa(conv.Speakers))}
		for _, gr := range groups {
			gr.add(conv, log, &g)
		}
		s.EOTPositives += len(g.EOT.Positives)
		s.HoldNegatives += len(g.EOT.Negatives)
		s.INTPositives += len(g.INT.Positives)
		s.INTNegatives += len(g.INT.Negatives)
		s.INTExcluded += len(g.INT.Excluded)
		s.Hours += conv.Duration / 3600

		h, ct := contestedHolds(log.Events)
		holds, contested = holds+h, contested+ct
		overlaps := overlapEvents(log.Events)
		s.OverlapEvents += len(overlaps)
		ch, err := c.noisyChannels(conv, log.Events)
		if err != nil {
			return nil, err
		}
		realised += ch.realisedOverlaps(log.Events, overlaps)
		r.add(log.Events, ch)
	}
	for _, v := range s.Voices {
		slices.Sort(v)
	}
	for _, m := range []map[string]*GroupStats{s.ByType, s.BySpeakers} {
		for _, gr := range m {
			gr.finish()
		}
	}
	s.OverlapRealised = ratio(realised, s.OverlapEvents)
	s.ContestedHoldShare = ratio(contested, holds)
	s.ListenerInPauses = ratio(r.listenerInPauses, r.listener)
	s.Restarts, s.RestartShare = r.restarts, ratio(r.restarts, r.overSpeech)
	s.ClaimPauses = ratio(r.claimPauses, r.claims)
	return s, nil
}

func group(m map[string]*GroupStats, key string) *GroupStats {
	if m[key] == nil {
		m[key] = &GroupStats{}
	}
	return m[key]
}

func (gr *GroupStats) add(conv Conversation, log *EventLog, g *floor.ConversationGold) {
	gr.Conversations++
	gr.seconds += conv.Duration
	gr.events += len(log.Events)
	for _, e := range log.Events {
		switch e.Kind {
		case floor.Turn:
			gr.turns++
			gr.turnSeconds += e.End - e.Start
		case floor.Interruption:
			gr.ints++
		case floor.Backchannel:
			gr.bcs++
		}
	}
	gr.EOTPositives += len(g.EOT.Positives)
	gr.HoldNegatives += len(g.EOT.Negatives)
	gr.INTPositives += len(g.INT.Positives)
	gr.INTNegatives += len(g.INT.Negatives)
}

func (gr *GroupStats) finish() {
	gr.Hours = gr.seconds / 3600
	if gr.turns > 0 {
		gr.TurnMean = gr.turnSeconds / float64(gr.turns)
	}
	minutes := gr.seconds / 60
	gr.EventsPerMin = float64(gr.events) / minutes
	gr.INTPerMin = float64(gr.ints) / minutes
	gr.BackchannelsPerMin = float64(gr.bcs) / minutes
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// speaking reports whether event e's speaker is vocalising at time t (in
// its extent and not in one of its holds or restarts).
func speaking(e floor.Event, t float64) bool {
	if t < e.Start || t >= e.End {
		return false
	}
	for _, h := range e.Holds {
		if t >= h.Start && t < h.End {
			return false
		}
	}
	for _, r := range e.Restarts {
		if t >= r.Start && t < r.End {
			return false
		}
	}
	return true
}

// overlap is an event that starts while another speaker speaks.
type overlap struct {
	event, other int // indexes into the log
}

func overlapEvents(events []floor.Event) []overlap {
	var out []overlap
	for i, e := range events {
		for j, o := range events {
			if o.Speaker != e.Speaker && speaking(o, e.Start) {
				out = append(out, overlap{i, j})
				break
			}
		}
	}
	return out
}

// contestedHolds counts holds and those another speaker vocalises in.
func contestedHolds(events []floor.Event) (holds, contested int) {
	for _, e := range events {
		for _, h := range e.Holds {
			holds++
			for _, o := range events {
				if o.Speaker != e.Speaker && o.Start < h.End && h.Start < o.End {
					contested++
					break
				}
			}
		}
	}
	return holds, contested
}

// overlapFactor: in a realised overlap both channels carry a 10 ms window
// at least this far (6 dB) above their noise.
const overlapFactor = 2.0

// noisyChannels are a conversation's channels with their noise levels.
type noisyChannels struct {
	xs    [][]float32
	noise []channelNoise
}

func (c *Corpus) noisyChannels(conv Conversation, events []floor.Event) (noisyChannels, error) {
	ch := noisyChannels{xs: make([][]float32, conv.Speakers), noise: make([]channelNoise, conv.Speakers)}
	for k := range conv.Speakers {
		x, err := c.ReadChannel16k(conv, k+1)
		if err != nil {
			return ch, err
		}
		ch.xs[k], ch.noise[k] = x, measureNoise(x, eventsOf(events, k+1))
	}
	return ch, nil
}

func (ch noisyChannels) loud(speaker int, t float64) bool {
	return windowRMS(ch.xs[speaker-1], t, t+0.01) > overlapFactor*ch.noise[speaker-1].median10
}

// realisedOverlaps counts the overlaps with simultaneous speech energy.
func (ch noisyChannels) realisedOverlaps(events []floor.Event, ov []overlap) int {
	n := 0
	for _, o := range ov {
		e, other := events[o.event], events[o.other]
		for t := e.Start; t+0.01 <= min(e.End, other.End); t += 0.005 {
			if ch.loud(e.Speaker, t) && ch.loud(other.Speaker, t) {
				n++
				break
			}
		}
	}
	return n
}

// onsetLook is how long after a vocalisation's onset its holder's channel
// is read to tell speech from a pause: a pause the generator puts speech
// into is at least 0.2 s long, and the speech starts at most half way in.
const onsetLook = 0.05

// reactionCounts are the counts behind Stats' reactions to overlap.
type reactionCounts struct {
	listener, listenerInPauses int // backchannels and non-content; those starting in their holder's silence
	overSpeech, restarts       int // non-floor-taking events starting over their holder's speech; restarts
	claims, claimPauses        int // interruptions; those the claimer's turn follows after a pause
}

func (r *reactionCounts) add(events []floor.Event, ch noisyChannels) {
	speaking := func(speaker int, t0 float64) bool {
		for t := t0; t < t0+onsetLook; t += 0.01 {
			if ch.loud(speaker, t) {
				return true
			}
		}
		return false
	}
	for _, e := range events {
		switch e.Kind {
		case floor.Turn:
			r.restarts += len(e.Restarts)
		case floor.Interruption:
			r.claims++
			if gap, ok := claimerGap(e, events); ok && gap >= floor.MinPause {
				r.claimPauses++
			}
		case floor.Backchannel, floor.NonContent, floor.NonFloorTakingInterruption:
			if e.FloorBefore == 0 || e.FloorBefore == e.Speaker {
				continue
			}
			over := speaking(e.FloorBefore, e.Start)
			if over {
				r.overSpeech++
			}
			if e.Kind != floor.NonFloorTakingInterruption {
				r.listener++
				if !over {
					r.listenerInPauses++
				}
			}
		}
	}
}

// claimerGap is the silence between a claim and the claimer's next turn.
func claimerGap(claim floor.Event, events []floor.Event) (float64, bool) {
	gap, found := 0.0, false
	for _, e := range events {
		if e.Kind == floor.Turn && e.Speaker == claim.Speaker && e.Start >= claim.End && (!found || e.Start-claim.End < gap) {
			gap, found = e.Start-claim.End, true
		}
	}
	return gap, found
}

// Summary is the corpus's totals, one sentence each.
func (s *Stats) Summary() []string {
	return []string{
		fmt.Sprintf("conversations %d (dev %d, test %d), %.2f h", s.Conversations, s.Dev, s.Test, s.Hours),
		fmt.Sprintf("EOT: %d positives, %d hold negatives (%.1f%% contested)", s.EOTPositives, s.HoldNegatives, 100*s.ContestedHoldShare),
		fmt.Sprintf("INT: %d positives, %d negatives, %d excluded", s.INTPositives, s.INTNegatives, s.INTExcluded),
		fmt.Sprintf("overlap events %d, %.1f%% realised as simultaneous speech", s.OverlapEvents, 100*s.OverlapRealised),
		fmt.Sprintf("reactions: %.1f%% of backchannels and non-content start in the holder's silence; %d restarts (%.1f%% of non-floor-taking speech over a holder's speech); %.1f%% of claims followed by a pause",
			100*s.ListenerInPauses, s.Restarts, 100*s.RestartShare, 100*s.ClaimPauses),
		fmt.Sprintf("voices: %d dev, %d test", len(s.Voices["dev"]), len(s.Voices["test"])),
	}
}

// Table is the composition by interaction type, then by speaker count: its
// title, header and rows (the command line renders them in its formats).
func (s *Stats) Table() (title string, header []string, rows [][]string) {
	title = "composition by interaction type and speaker count"
	header = []string{"group", "convs", "hours", "turn s", "events/min", "INT/min", "BC/min", "EOT+", "holds", "INT+", "INT-"}
	row := func(name string, g *GroupStats) {
		rows = append(rows, []string{name, fmt.Sprint(g.Conversations), fmt.Sprintf("%.2f", g.Hours), fmt.Sprintf("%.2f", g.TurnMean),
			fmt.Sprintf("%.1f", g.EventsPerMin), fmt.Sprintf("%.2f", g.INTPerMin), fmt.Sprintf("%.2f", g.BackchannelsPerMin),
			fmt.Sprint(g.EOTPositives), fmt.Sprint(g.HoldNegatives), fmt.Sprint(g.INTPositives), fmt.Sprint(g.INTNegatives)})
	}
	for _, t := range dialogue.InteractionTypes {
		if g := s.ByType[string(t)]; g != nil {
			row(string(t), g)
		}
	}
	// Ingested corpora have their own types (AMI: scenario, non-scenario).
	var other []string
	for t := range s.ByType {
		if _, err := dialogue.ParseInteractionType(t); err != nil {
			other = append(other, t)
		}
	}
	slices.Sort(other)
	for _, t := range other {
		row(t, s.ByType[t])
	}
	for n := 1; n <= maxSpeakers; n++ {
		if g := s.BySpeakers[strconv.Itoa(n)]; g != nil {
			row(strconv.Itoa(n)+" speakers", g)
		}
	}
	return title, header, rows
}
