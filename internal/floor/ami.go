package floor

import (
	"cmp"
	"slices"
	"strings"
)

// AMIRules are the thresholds that turn AMI's timed words into floor
// events (see the package documentation, "AMI floor rules"). All times are
// seconds.
type AMIRules struct {
	// SpurtBridge: a speaker's vocalisations separated by less than this
	// are one talk spurt (Brady 1968's 200 ms fill-in; Heldner & Edlund
	// 2010 treat shorter silences as within-spurt too).
	SpurtBridge float64
	// MinHold: a pause of the floor holder at least this long, after which
	// they resume before anyone else takes the floor, is a hold.
	MinHold float64
	// MaxHold: a floor holder silent for longer than this has given up
	// the floor even if nobody took it; their resumption is a new turn.
	MaxHold float64
	// BackchannelMaxWords and BackchannelMaxDur bound a lexical backchannel.
	BackchannelMaxWords int
	BackchannelMaxDur   float64
	// InterruptWindow: an intruder's onset in overlap is a successful
	// interruption only if the holder stops within this long after it.
	InterruptWindow float64
	// MinOutlast: ... and only if the intruder talks on at least this long
	// after the holder stopped.
	MinOutlast float64
	// InterjectionMaxWords: an overlapping claim that fails and has at most
	// this many words is a non-floor-taking interruption, a longer one an
	// interruption attempt.
	InterjectionMaxWords int
}

// DefaultAMIRules are the defaults the package documentation gives.
var DefaultAMIRules = AMIRules{
	SpurtBridge:          0.2,
	MinHold:              0.2,
	MaxHold:              2.0,
	BackchannelMaxWords:  3,
	BackchannelMaxDur:    1.0,
	InterruptWindow:      1.5,
	MinOutlast:           0.3,
	InterjectionMaxWords: 3,
}

// backchannelWords is the lexicon of lexical backchannels (continuers and
// acknowledgements, after Ward & Tsukahara 2000), as AMI spells them.
var backchannelWords = map[string]bool{
	"yeah": true, "yes": true, "yep": true, "yup": true, "mm": true, "mm-hmm": true, "mmm": true,
	"hmm": true, "uh-huh": true, "um-hmm": true, "right": true, "okay": true, "ok": true,
	"sure": true, "alright": true, "aha": true, "ah": true, "oh": true, "true": true, "exactly": true,
}

// DialogueAct is what AMI's dialogue acts say about a word.
type DialogueAct int

const (
	DANone        DialogueAct = iota // no dialogue act covers the word
	DABackchannel                    // a dialogue act of type Backchannel
	DAOther                          // a dialogue act of another type
)

// Vocalisation is one timed word or vocal sound of a speaker, the unit
// the AMI floor rules read.
type Vocalisation struct {
	Start, End float64
	Word       string // "" for a vocal sound
	Question   bool   // the word is followed by a "?" punctuation token
	DA         DialogueAct
}

// spurt is a talk spurt: a speaker's vocalisations with no pause of
// SpurtBridge or more between them.
type spurt struct {
	Speaker    int
	Start, End float64
	Units      []Vocalisation
}

func (s spurt) words() []string {
	var out []string
	for _, u := range s.Units {
		if u.Word != "" {
			out = append(out, u.Word)
		}
	}
	return out
}

// spurts merges one speaker's vocalisations into talk spurts; spurts of
// zero length are dropped and their words counted in dropped.
func (r AMIRules) spurts(speaker int, vs []Vocalisation) (out []spurt, dropped int) {
	vs = slices.Clone(vs)
	slices.SortStableFunc(vs, func(a, b Vocalisation) int { return cmp.Compare(a.Start, b.Start) })
	flush := func(s *spurt) {
		if s.End > s.Start {
			out = append(out, *s)
		} else {
			dropped += len(s.words())
		}
	}
	var cur *spurt
	for _, v := range vs {
		if cur != nil && v.Start-cur.End < r.SpurtBridge {
			cur.End = max(cur.End, v.End)
			cur.Units = append(cur.Units, v)
			continue
		}
		if cur != nil {
			flush(cur)
		}
		cur = &spurt{Speaker: speaker, Start: v.Start, End: v.End, Units: []Vocalisation{v}}
	}
	if cur != nil {
		flush(cur)
	}
	return out, dropped
}

// nonFloor says whether a spurt cannot take the floor: NON_CONTENT (only
// vocal sounds) or BACKCHANNEL (dialogue acts of type Backchannel; without
// dialogue acts, a short spurt of lexicon words). It returns "" for a
// spurt that can take the
func (r AMIRules) nonFloor(s spurt) EventKind {
	words := s.words()
	if len(words) == 0 {
		return NonContent
	}
	annotated, backchannel := false, true
	for _, u := range s.Units {
		if u.Word == "" || u.DA == DANone {
			continue
		}
		annotated = true
		backchannel = backchannel && u.DA == DABackchannel
	}
	if annotated {
		if backchannel {
			return Backchannel
		}
		return ""
	}
	if len(words) > r.BackchannelMaxWords || s.End-s.Start > r.BackchannelMaxDur {
		return ""
	}
	for _, w := range words {
		if !backchannelWords[normalWord(w)] {
			return ""
		}
	}
	return Backchannel
}

func normalWord(w string) string {
	return strings.Trim(strings.ToLower(w), ".,?!'\"")
}

// floorSweep is the state of AMIRules.Derive's left-to-right pass.
type floorSweep struct {
	r      AMIRules
	events []Event
	turn   *Event   // the open turn; nil when nobody holds the floor
	words  []string // the open turn's words
	// lastQuestion: the open turn's latest word ended a question.
	lastQuestion bool
}

// Derive turns every speaker's vocalisations (speakers[k] is speaker
// k+1's) into an MPTB event log by the AMI floor rules (see the package
// documentation), sorted by start time then speaker. dropped counts the
// words of talk spurts of zero length, which are left out.
func (r AMIRules) Derive(speakers [][]Vocalisation) (events []Event, dropped int) {
	spurts := make([][]spurt, len(speakers))
	for k, vs := range speakers {
		var n int
		spurts[k], n = r.spurts(k+1, vs)
		dropped += n
	}
	return r.derive(spurts), dropped
}

// derive turns every speaker's talk spurts (speakers[k] is speaker k+1's)
// into an MPTB event log by the AMI floor rules, sorted by start time then
// speaker.
func (r AMIRules) derive(speakers [][]spurt) []Event {
	var all []spurt
	for _, s := range speakers {
		all = append(all, s...)
	}
	slices.SortStableFunc(all, func(a, b spurt) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Speaker, b.Speaker))
	})
	w := &floorSweep{r: r}
	for _, s := range all {
		w.add(s)
	}
	w.close(Yielded, 0)
	setListenerFloor(w.events)
	slices.SortStableFunc(w.events, func(a, b Event) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Speaker, b.Speaker))
	})
	return w.events
}

// add applies the floor rules to the next spurt in time order.
func (w *floorSweep) add(s spurt) {
	// A holder silent for longer than MaxHold has let the floor go.
	if w.turn != nil && s.Start-w.turn.End > w.r.MaxHold {
		w.close(Yielded, 0)
	}
	kind := w.r.nonFloor(s)
	switch {
	case w.turn != nil && s.Speaker == w.turn.Speaker && kind != NonContent:
		// The holder's own words, a lexical backchannel included, go on
		// with their turn; their coughs and laughs do not extend it.
		w.extend(s)
	case kind != "":
		w.emit(kind, s, s.Start, s.End, s.words(), 0)
	case w.turn == nil:
		w.open(s, s.Start, s.Units, 0)
	case s.Start >= w.turn.End:
		// The holder is silent: the floor passes after a gap.
		w.close(Yielded, 0)
		w.open(s, s.Start, s.Units, 0)
	default:
		w.overlap(s)
	}
}

// overlap handles a floor-capable spurt that starts while the holder speaks.
func (w *floorSweep) overlap(s spurt) {
	h, stop := w.turn.Speaker, w.turn.End
	outlasts := s.End > stop && s.End-stop >= w.r.MinOutlast
	switch {
	case s.Start < w.turn.Start || !outlasts:
		// The holder keeps the floor (a third voice that started before
		// the current turn also lands here).
		kind := InterruptionAttempt
		if len(s.words()) <= w.r.InterjectionMaxWords {
			kind = NonFloorTakingInterruption
		}
		w.emit(kind, s, s.Start, s.End, s.words(), h)
	case stop-s.Start <= w.r.InterruptWindow:
		claim, rest := splitAt(s.Units, stop)
		w.close(Interrupted, s.Speaker)
		in := w.emit(Interruption, s, s.Start, stop, wordsOf(claim), h)
		in.FloorAfter = s.Speaker
		w.open(s, stop, rest, s.Speaker)
	default:
		// The holder talked on past the window, finished, and the intruder
		// carried on: the holder yielded; the overlap is an excluded attempt.
		claim, rest := splitAt(s.Units, stop)
		w.emit(InterruptionAttempt, s, s.Start, stop, wordsOf(claim), h)
		w.close(Yielded, 0)
		w.open(s, stop, rest, h)
	}
}

// extend adds the holder's own next spurt to their turn; the pause before
// it is a hold when long enough.
func (w *floorSweep) extend(s spurt) {
	t := w.turn
	if pause := s.Start - t.End; pause >= w.r.MinHold {
		t.Holds = append(t.Holds, Hold{Start: t.End, End: s.Start, AfterQuestion: w.lastQuestion})
	}
	t.End = max(t.End, s.End)
	w.addWords(s.Units)
}

// open starts speaker s.Speaker's turn at start with the given units.
func (w *floorSweep) open(s spurt, start float64, units []Vocalisation, before int) {
	w.turn = &Event{Kind: Turn, Speaker: s.Speaker, Start: start, End: s.End, FloorBefore: before}
	w.words, w.lastQuestion = nil, false
	w.addWords(units)
}

func (w *floorSweep) addWords(units []Vocalisation) {
	for _, u := range units {
		if u.Word != "" {
			w.words = append(w.words, u.Word)
			w.lastQuestion = u.Question
		}
	}
}

// close ends the open turn, if any.
func (w *floorSweep) close(ending TurnEnding, after int) {
	if w.turn == nil {
		return
	}
	t := *w.turn
	t.Ending, t.FloorAfter = ending, after
	t.Text, t.Words = strings.Join(w.words, " "), len(w.words)
	w.events = append(w.events, t)
	w.turn = nil
}

// emit logs a non-turn event with the holder before and after it.
func (w *floorSweep) emit(kind EventKind, s spurt, start, end float64, words []string, holder int) *Event {
	w.events = append(w.events, Event{Kind: kind, Speaker: s.Speaker, Start: start, End: end,
		Text: strings.Join(words, " "), Words: len(words), FloorBefore: holder, FloorAfter: holder})
	return &w.events[len(w.events)-1]
}

// splitAt splits units into those starting before t and the rest.
func splitAt(units []Vocalisation, t float64) (before, after []Vocalisation) {
	i := slices.IndexFunc(units, func(u Vocalisation) bool { return u.Start >= t })
	if i < 0 {
		return units, nil
	}
	return units[:i], units[i:]
}

func wordsOf(units []Vocalisation) []string { return spurt{Units: units}.words() }

// setListenerFloor sets the floor holder of backchannels and non-content
// events from the finished turns: the speaker whose turn (holds included)
// covers the event's start, 0 when none does.
func setListenerFloor(events []Event) {
	for i, e := range events {
		if e.Kind != Backchannel && e.Kind != NonContent {
			continue
		}
		holder := 0
		for _, t := range events {
			if t.Kind == Turn && t.Start <= e.Start && e.Start < t.End {
				holder = t.Speaker
			}
		}
		events[i].FloorBefore, events[i].FloorAfter = holder, holder
	}
}
