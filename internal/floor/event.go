package floor

// EventKind names one kind of generator event (docs/formats.md#event-log). Events are
// role-relative to the floor holder.
type EventKind string

// The six event kinds of an MPTB event log.
const (
	Turn                       EventKind = "TURN"
	Interruption               EventKind = "INTERRUPTION"
	InterruptionAttempt        EventKind = "INTERRUPTION_ATTEMPT"
	NonFloorTakingInterruption EventKind = "NON_FLOOR_TAKING_INTERRUPTION"
	Backchannel                EventKind = "BACKCHANNEL"
	NonContent                 EventKind = "NON_CONTENT"
)

// EventKinds lists every kind, in the order of docs/formats.md#event-log.
var EventKinds = []EventKind{Turn, Interruption, InterruptionAttempt, NonFloorTakingInterruption, Backchannel, NonContent}

// TurnEnding says how a TURN lost the floor.
type TurnEnding string

// The two ways a turn ends.
const (
	Yielded     TurnEnding = "yielded"
	Interrupted TurnEnding = "interrupted"
)

// Hold is a pause inside a turn during which the speaker keeps the floor.
type Hold struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	// AfterQuestion is true when the speech before the hold ends a question
	// (the error anatomy of docs/protocol.md#breakdowns-and-error-anatomy splits hold FPs on it).
	AfterQuestion bool `json:"after_question"`
}

// Restart is a silence inside a turn where its speaker, overlapped by
// someone's non-floor-taking speech, cut off and then restarted the same
// turn (overlap resolution): neither a turn end nor a hold.
type Restart struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Event is one entry of a generator's event log, with exact times.
type Event struct {
	Kind    EventKind `json:"kind"`
	Speaker int       `json:"speaker"`
	Start   float64   `json:"start"`
	End     float64   `json:"end"`
	Text    string    `json:"text,omitempty"`
	Words   int       `json:"words"`
	// Ending, Holds and Restarts are set for TURN events only.
	Ending   TurnEnding `json:"ending,omitempty"`
	Holds    []Hold     `json:"holds,omitempty"`
	Restarts []Restart  `json:"restarts,omitempty"`
	// FloorBefore and FloorAfter are the floor holder's speaker number just
	// before and just after the event (0: nobody holds the floor).
	FloorBefore int `json:"floor_before"`
	FloorAfter  int `json:"floor_after"`
}
