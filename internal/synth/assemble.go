package synth

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/floor"
)

// Timeline is stage 5's layout before acoustics: one clean channel per
// speaker, all the same length, and the event log with exact times.
type Timeline struct {
	Channels [][]float32
	Events   []floor.Event
}

// Duration is the timeline's length in seconds.
func (t Timeline) Duration() float64 { return float64(len(t.Channels[0])) / audio.Rate }

// collisionMargin is the least silence between two vocalisations of one
// speaker: a listener's backchannel never runs into their own turn.
const collisionMargin = audio.Rate * 15 / 100

// placement is where one act's clips landed, in samples.
type placement struct {
	starts   []int // per clip
	clips    [][]float32
	kept     bool
	spoken   float64  // share of the scripted speech that was said (cut turns < 1)
	full     int      // a turn's end as scripted, before any claim cut it
	restarts [][2]int // a turn's restart silences, [start, end)
	cause    bool     // an overlay its host restarted at
}

func (p placement) start() int { return p.starts[0] }
func (p placement) end() int   { return p.starts[len(p.starts)-1] + len(p.clips[len(p.clips)-1]) }

// Assemble lays the rendered acts out on sample timelines. Overlays that
// would run into their own speaker's speech are dropped before any event
// is logged, so the log only ever describes audio that exists.
func Assemble(p FloorPlan, r Rendering) (Timeline, error) {
	if len(r.Acts) != len(p.Acts) {
		return Timeline{}, fmt.Errorf("%d rendered acts for %d planned", len(r.Acts), len(p.Acts))
	}
	pl := make([]placement, len(p.Acts))
	claimOnset := map[int]int{} // host act -> onset of the claim that took its floor
	lead := sec(p.Lead)
	// Floor-holding speech first (turns, claims, and the restarts that
	// move a turn's later speech, each before the next turn is placed
	// after it), then what is said over it.
	for i, a := range p.Acts {
		clips := append([][]float32(nil), r.Acts[i].Clips...)
		switch {
		case a.Kind == floor.Turn:
			pl[i] = placement{starts: turnStarts(a, clips, pl, lead, ownEnd(p, pl, i)), clips: clips, kept: true, spoken: 1}
			pl[i].full = pl[i].end()
		case a.Kind == floor.Interruption:
			h := &pl[a.Host]
			onset := max(claimStart(a, *h), ownEnd(p, pl, i))
			cutHost(h, onset, sec(a.Keep))
			claimOnset[a.Host] = onset
			pl[i] = placement{starts: []int{onset}, clips: clips, kept: true}
		case a.Restart.Silence > 0:
			placeRestart(p, pl, i, clips)
		}
	}
	pauses := map[int][][2]int{} // host act -> pauses of its speech
	for i, a := range p.Acts {
		if a.Kind == floor.Turn || a.Kind == floor.Interruption || pl[i].kept {
			continue
		}
		clips := append([][]float32(nil), r.Acts[i].Clips...)
		h, n := pl[a.Host], len(clips[0])
		s := overlayStart(a, h, claimOnset, n)
		if a.InPause {
			if _, ok := pauses[a.Host]; !ok {
				pauses[a.Host] = speechPauses(h)
			}
			s = pauseStart(a, h, pauses[a.Host], overlayLimit(a, h, claimOnset), n, s)
		}
		pl[i] = placement{starts: []int{s}, clips: clips, kept: true}
	}
	dropCollisions(p, pl)
	return layout(p, pl)
}

// turnStarts places a turn's segments: the first after the act it follows
// (an overlapping handover never starts before 0.3 s of the previous
// speaker's last stretch of speech has been said) and no earlier than
// earliest, the others after its holds.
func turnStarts(a Act, clips [][]float32, pl []placement, lead, earliest int) []int {
	s := lead
	if a.Follows >= 0 {
		prev := pl[a.Follows]
		s = max(0, prev.end()+sec(a.Gap), prev.starts[len(prev.starts)-1]+sec(0.3), earliest)
	}
	starts := []int{s}
	for k := 1; k < len(clips); k++ {
		starts = append(starts, starts[k-1]+len(clips[k-1])+sec(a.Holds[k-1]))
	}
	return starts
}

// ownEnd is the earliest act i may start so as to keep collisionMargin of
// silence after its speaker's turns and claims placed so far (but the act
// it follows: a claimer may run straight on into their turn): a holder
// who talks on over a claim may still be talking when, after the
// claimer's turn, their own next turn would start.
func ownEnd(p FloorPlan, pl []placement, i int) int {
	a, end := p.Acts[i], 0
	for j := range i {
		if o := p.Acts[j]; (o.Kind == floor.Turn || o.Kind == floor.Interruption) && o.Speaker == a.Speaker && (a.Kind != floor.Turn || j != a.Follows) {
			end = max(end, pl[j].end()+collisionMargin)
		}
	}
	return end
}

// overlayStart places a listener's vocalisation on its host turn: at
// fraction At of the host's speech as scripted, or of its hold InHold. One spoken over
// speech that would outlast the host's speech (or reach the claim that
// ends it) moves earlier, as far as 0.3 s after the host's onset, so that
// long asides are spoken over a holder who keeps talking.
func overlayStart(a Act, h placement, claimOnset map[int]int, n int) int {
	if a.InHold > 0 {
		hs := h.starts[a.InHold-1] + len(h.clips[a.InHold-1])
		return hs + int(a.At*float64(h.starts[a.InHold]-hs))
	}
	s := h.start() + int(a.At*float64(h.full-h.start()))
	if limit := overlayLimit(a, h, claimOnset); s+n > limit {
		s = max(h.start()+sec(0.3), min(s, limit-n))
	}
	return s
}

// overlayLimit is where speech over the host must have ended: 0.25 s
// before the host's end, and 0.12 s before a claim that takes its floor.
func overlayLimit(a Act, h placement, claimOnset map[int]int) int {
	limit := h.end() - sec(0.25)
	if on, ok := claimOnset[a.Host]; ok {
		limit = min(limit, on-sec(0.12))
	}
	return limit
}

// claimStart is a claim's onset on its host: fraction At of the host's
// speech, moved earlier (to no less than 0.3 s into it) where the holder
// would not have the speech left to talk on for Keep.
func claimStart(a Act, h placement) int {
	onset := h.start() + int(a.At*float64(h.end()-h.start()))
	return max(h.start()+sec(0.3), min(onset, h.end()-sec(a.Keep+claimRoom)))
}

// claimRoom is the speech a claim leaves its holder after talking on.
const claimRoom = 0.05

// minOverlap is the least a holder talks on after a claim's onset, so that
// the overlap is real; Switchboard's 5th percentile is 32 ms.
const minOverlap = 0.03

// cutHost ends the interrupted turn after the claimer has talked over it
// for `keep` samples. If the cut would leave less than minOverlap of
// speech after the claim's onset (it fell in a pause), it moves later; a
// holder with less than `keep` left finishes the turn.
func cutHost(h *placement, onset, keep int) {
	last := len(h.clips) - 1
	segStart := h.starts[last]
	for cut := onset + keep; cut < h.end(); cut += sec(0.05) {
		c, ok := CutSpeech(h.clips[last], cut-segStart)
		if ok && segStart+len(c) >= onset+sec(minOverlap) {
			h.spoken = float64(len(c)) / float64(len(h.clips[last]))
			h.clips[last] = c
			return
		}
	}
}

// dropCollisions marks overlays that touch their own speaker's turns or
// claims, or an earlier kept overlay of theirs, as not kept. Overlays at
// which their host restarts come first: the restart is already in the
// host's audio, so its cause stays.
func dropCollisions(p FloorPlan, pl []placement) {
	type span struct{ s, e int }
	busy := map[int][]span{}
	for i, a := range p.Acts {
		if a.Kind == floor.Turn || a.Kind == floor.Interruption {
			busy[a.Speaker] = append(busy[a.Speaker], span{pl[i].start(), pl[i].end()})
		}
	}
	overlays := func(causes bool) {
		for i, a := range p.Acts {
			if a.Kind == floor.Turn || a.Kind == floor.Interruption || pl[i].cause != causes {
				continue
			}
			s, e := pl[i].start(), pl[i].end()
			for _, b := range busy[a.Speaker] {
				if s < b.e+collisionMargin && b.s < e+collisionMargin {
					pl[i].kept = false
					break
				}
			}
			if pl[i].kept {
				busy[a.Speaker] = append(busy[a.Speaker], span{s, e})
			}
		}
	}
	overlays(true)
	overlays(false)
}

// layout mixes the kept clips into channels and writes the event log.
func layout(p FloorPlan, pl []placement) (Timeline, error) {
	n := 0
	for _, x := range pl {
		if x.kept {
			n = max(n, x.end())
		}
	}
	n += sec(p.Tail)
	t := Timeline{Channels: make([][]float32, p.Spec.Speakers)}
	for k := range t.Channels {
		t.Channels[k] = make([]float32, n)
	}
	for i, a := range p.Acts {
		x := pl[i]
		if !x.kept {
			continue
		}
		for k, c := range x.clips {
			audio.AddAt(t.Channels[a.Speaker-1], c, x.starts[k], 1)
		}
		t.Events = append(t.Events, event(p, pl, i))
	}
	for k, ch := range t.Channels {
		if pk := audio.Peak(ch); pk >= 1 {
			return Timeline{}, fmt.Errorf("%s: speaker %d clips (peak %.3f) before noise", p.Spec.ID, k+1, pk)
		}
	}
	slices.SortStableFunc(t.Events, func(a, b floor.Event) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Speaker, b.Speaker))
	})
	return t, nil
}

// event writes act i's log entry from where its samples landed.
func event(p FloorPlan, pl []placement, i int) floor.Event {
	a, x := p.Acts[i], pl[i]
	e := floor.Event{Kind: a.Kind, Speaker: a.Speaker, Start: t(x.start()), End: t(x.end())}
	switch a.Kind {
	case floor.Turn:
		var texts []string
		for _, u := range a.Segments {
			texts = append(texts, u.Text)
		}
		e.Text = strings.Join(texts, " ")
		for k := range a.Holds {
			e.Holds = append(e.Holds, floor.Hold{Start: t(x.starts[k] + len(x.clips[k])), End: t(x.starts[k+1]), AfterQuestion: a.Segments[k].Question})
		}
		for _, r := range x.restarts {
			e.Restarts = append(e.Restarts, floor.Restart{Start: t(r[0]), End: t(r[1])})
		}
		e.Ending = a.Ending
		switch {
		case a.Follows < 0:
		case p.Acts[a.Follows].Kind == floor.Interruption:
			e.FloorBefore = a.Speaker
		case a.Gap < 0:
			e.FloorBefore = p.Acts[a.Follows].Speaker
		}
		if a.Ending == floor.Interrupted {
			for j := i + 1; j < len(p.Acts); j++ {
				if p.Acts[j].Kind == floor.Interruption && p.Acts[j].Host == i {
					e.FloorAfter = p.Acts[j].Speaker
					break
				}
			}
			// An overtaken speaker said only part of the scripted text.
			e.Text = truncateWords(e.Text, x.spoken)
		}
	case floor.Interruption:
		e.Text = a.Utterance.Text
		e.FloorBefore, e.FloorAfter = p.Acts[a.Host].Speaker, a.Speaker
	default:
		e.Text = a.Utterance.Text
		e.FloorBefore, e.FloorAfter = p.Acts[a.Host].Speaker, p.Acts[a.Host].Speaker
	}
	e.Words = len(strings.Fields(e.Text))
	return e
}

// truncateWords keeps the first share of the words of s (at least one).
func truncateWords(s string, share float64) string {
	w := strings.Fields(s)
	n := min(len(w), max(1, int(math.Round(share*float64(len(w))))))
	return strings.Join(w[:n], " ")
}

func sec(s float64) int    { return int(math.Round(s * audio.Rate)) }
func t(sample int) float64 { return float64(sample) / audio.Rate }
