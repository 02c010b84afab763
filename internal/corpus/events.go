package corpus

import (
	"fmt"
	"io"
	"math"
	"os"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/redact"
)

const maxEvents = 8 << 20 // bytes of events.json

// EventLog is events.json: a conversation's exact event log.
type EventLog struct {
	SchemaVersion  int           `json:"schema_version"`
	ConversationID string        `json:"conversation_id"`
	Duration       float64       `json:"duration_s"`
	Speakers       int           `json:"speakers"`
	Events         []floor.Event `json:"events"`
}

// ReadEvents reads and validates an events.json.
func ReadEvents(path string) (*EventLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEvents+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	l, err := ParseEvents(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// ParseEvents decodes an event log strictly and validates it.
func ParseEvents(data []byte) (*EventLog, error) {
	if len(data) > maxEvents {
		return nil, fmt.Errorf("event log larger than %d bytes", maxEvents)
	}
	var l EventLog
	if err := decodeStrict(data, &l); err != nil {
		return nil, err
	}
	return &l, l.Validate()
}

// Encode returns the event log as events.json's bytes.
func (l *EventLog) Encode() ([]byte, error) { return encode(l) }

// Validate checks kinds, speakers, times and turn fields.
func (l *EventLog) Validate() error {
	if l.SchemaVersion != SchemaVersion {
		return fmt.Errorf("schema_version %d (want %d)", l.SchemaVersion, SchemaVersion)
	}
	if l.Speakers < 1 || l.Speakers > maxSpeakers {
		return fmt.Errorf("%d speakers", l.Speakers)
	}
	if !(l.Duration > 0) || math.IsInf(l.Duration, 0) {
		return fmt.Errorf("duration_s %v: want a finite length above 0 s (a zero-length conversation has nothing to detect or score)", l.Duration)
	}
	inside := func(t float64) bool { return t >= 0 && t <= l.Duration }
	for i, e := range l.Events {
		where := fmt.Sprintf("event %d (%s)", i, e.Kind)
		if !known(e.Kind) {
			return fmt.Errorf("event %d: unknown kind %s", i, redact.Name(string(e.Kind)))
		}
		if e.Speaker < 1 || e.Speaker > l.Speakers {
			return fmt.Errorf("%s: speaker %d of %d", where, e.Speaker, l.Speakers)
		}
		if !inside(e.Start) || !inside(e.End) || e.End <= e.Start {
			return fmt.Errorf("%s: [%v, %v] is not a span inside [0, %v]", where, e.Start, e.End, l.Duration)
		}
		if e.FloorBefore < 0 || e.FloorBefore > l.Speakers || e.FloorAfter < 0 || e.FloorAfter > l.Speakers {
			return fmt.Errorf("%s: floor holder outside 0..%d", where, l.Speakers)
		}
		if e.Words < 0 {
			return fmt.Errorf("%s: %d words", where, e.Words)
		}
		if e.Kind != floor.Turn {
			if e.Ending != "" || len(e.Holds) > 0 || len(e.Restarts) > 0 {
				return fmt.Errorf("%s: only TURN events have an ending, holds and restarts", where)
			}
			continue
		}
		if e.Ending != floor.Yielded && e.Ending != floor.Interrupted {
			return fmt.Errorf("%s: ending %s (want yielded or interrupted)", where, redact.Name(string(e.Ending)))
		}
		if err := checkSilences(e); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}

// checkSilences checks that a turn's holds, and its restarts, lie inside
// it in order, and that no restart meets a hold.
func checkSilences(e floor.Event) error {
	prev := e.Start
	for j, h := range e.Holds {
		if !(h.Start > prev && h.End > h.Start && h.End < e.End) {
			return fmt.Errorf("hold %d [%v, %v] not inside the turn in order", j, h.Start, h.End)
		}
		prev = h.End
	}
	prev = e.Start
	for j, r := range e.Restarts {
		if !(r.Start > prev && r.End > r.Start && r.End < e.End) {
			return fmt.Errorf("restart %d [%v, %v] not inside the turn in order", j, r.Start, r.End)
		}
		for _, h := range e.Holds {
			if r.Start <= h.End && h.Start <= r.End {
				return fmt.Errorf("restart %d [%v, %v] meets hold [%v, %v]", j, r.Start, r.End, h.Start, h.End)
			}
		}
		prev = r.End
	}
	return nil
}

func known(k floor.EventKind) bool {
	for _, x := range floor.EventKinds {
		if x == k {
			return true
		}
	}
	return false
}
