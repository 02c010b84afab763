package synth

import "github.com/floorbench/floorbench/internal/dialogue"

// Style holds the floor dynamics of one interaction type. Rates are per
// minute of conversation; the floor planner turns them into per-turn
// probabilities. The values are calibrated against a rendered mptb corpus
// so that it reproduces the paper's composition (MPTB §3.2, §D.1): casual
// has the fastest exchanges (about 19.4 events/min, 4.81 s turns),
// narrative the longest turns (9.22 s), collaborative the most
// interruptions (1.33/min). Realised rates differ from these inputs
// (turns with holds cannot be interrupted, overlays into a speaker's own
// speech are dropped), which is why they are calibrated, not copied.
//
// Timing is not a rate: hold pauses and handover offsets are drawn from
// Switchboard's distributions (package swbd), stretched or shifted a
// little per type (PauseScale, OffsetShift) — longer thinking pauses in
// instructional and narrative talk, quicker, more overlapped exchanges in
// casual and argumentative talk — with the factors chosen so that the
// pooled corpus keeps Switchboard's distributions.
type Style struct {
	TurnSeconds   float64 // mean planned turn length
	TurnSpread    float64 // log-normal sigma of turn length
	GapMean       float64 // handover gap the script writer plans a turn's length with
	PauseScale    float64 // multiplies Switchboard pauses for holds and post-claim pauses
	OffsetShift   float64 // seconds added to Switchboard's handover offsets
	HoldShare     float64 // share of turns with at least one hold pause
	QuestionShare float64 // share of turns that end in a question
	Backchannels  float64 // per minute
	Interjections float64 // non-floor-taking interruptions per minute
	NonContent    float64 // laughter, throat clearing, per minute
	Interruptions float64 // successful floor claims per minute
	Attempts      float64 // failed floor claims per minute
}

// styles are the per-type dynamics.
var styles = map[dialogue.InteractionType]Style{
	dialogue.Casual:        {TurnSeconds: 4.15, TurnSpread: 0.45, GapMean: 0.25, PauseScale: 0.88, OffsetShift: -0.05, HoldShare: 0.04, QuestionShare: 0.35, Backchannels: 1.47, Interjections: 2.03, NonContent: 1.13, Interruptions: 1.0, Attempts: 0.35},
	dialogue.TaskOriented:  {TurnSeconds: 4.8, TurnSpread: 0.4, GapMean: 0.35, PauseScale: 0.95, OffsetShift: 0.02, HoldShare: 0.06, QuestionShare: 0.4, Backchannels: 1.19, Interjections: 1.24, NonContent: 0.4, Interruptions: 0.85, Attempts: 0.3},
	dialogue.Instructional: {TurnSeconds: 7.2, TurnSpread: 0.45, GapMean: 0.4, PauseScale: 1.08, OffsetShift: 0.08, HoldShare: 0.09, QuestionShare: 0.3, Backchannels: 1.24, Interjections: 1.02, NonContent: 0.34, Interruptions: 0.5, Attempts: 0.25},
	dialogue.Collaborative: {TurnSeconds: 4.8, TurnSpread: 0.4, GapMean: 0.25, PauseScale: 0.95, OffsetShift: -0.02, HoldShare: 0.05, QuestionShare: 0.3, Backchannels: 1.24, Interjections: 1.58, NonContent: 0.51, Interruptions: 1.2, Attempts: 0.35},
	dialogue.Argumentative: {TurnSeconds: 5.3, TurnSpread: 0.4, GapMean: 0.2, PauseScale: 0.9, OffsetShift: -0.08, HoldShare: 0.04, QuestionShare: 0.25, Backchannels: 1.02, Interjections: 1.81, NonContent: 0.4, Interruptions: 1.05, Attempts: 0.6},
	dialogue.Narrative:     {TurnSeconds: 9.2, TurnSpread: 0.35, GapMean: 0.4, PauseScale: 1.1, OffsetShift: 0.05, HoldShare: 0.12, QuestionShare: 0.2, Backchannels: 1.24, Interjections: 0.9, NonContent: 0.51, Interruptions: 0.7, Attempts: 0.2},
}

// StyleOf returns the dynamics of type t.
func StyleOf(t dialogue.InteractionType) Style { return styles[t] }
