package limits

import (
	"fmt"
	"time"
)

// CheckAgentQueue checks the seconds of an agent's audio queued ahead of
// playback.
func (l Limits) CheckAgentQueue(seconds float64) error {
	if seconds > l.AgentQueueS {
		return &OverError{Field: "audio the agent sent ahead of playback", Value: fmt.Sprintf("%.2f s", seconds),
			Key: "agent_queue_s", Limit: fmt.Sprintf("%g s", l.AgentQueueS)}
	}
	return nil
}

// CheckAgentItems checks the number of a realtime agent's output items in
// flight.
func (l Limits) CheckAgentItems(n int) error {
	if n > l.AgentItems {
		return over("the agent's output items in flight", "agent_items", n, l.AgentItems)
	}
	return nil
}

// CheckAgentFramesAhead checks how many frames a duplex agent's channel
// runs ahead of the input it answers.
func (l Limits) CheckAgentFramesAhead(n int64) error {
	if n > int64(l.AgentFramesAhead) {
		return &OverError{Field: "the agent's channel ahead of the input", Value: fmt.Sprintf("%d frames", n),
			Key: "agent_frames_ahead", Limit: fmt.Sprintf("%d frames", l.AgentFramesAhead)}
	}
	return nil
}

// CheckAgentEvents checks the events of one session so far (total) and
// of its current second of session time (inSecond).
func (l Limits) CheckAgentEvents(total, inSecond int) error {
	if total > l.AgentEvents {
		return &OverError{Field: "the agent's events in one session", Value: fmt.Sprint(total),
			Key: "agent_events", Limit: fmt.Sprint(l.AgentEvents)}
	}
	if inSecond > l.AgentEventsPerS {
		return &OverError{Field: "the agent's events in one second", Value: fmt.Sprint(inSecond),
			Key: "agent_events_per_s", Limit: fmt.Sprint(l.AgentEventsPerS)}
	}
	return nil
}

// SpeechSeconds is the most audio a speech answer to a text of chars
// characters may hold: SpeechSPerChar a character, one character at
// least.
func (l Limits) SpeechSeconds(chars int) float64 { return float64(max(chars, 1)) * l.SpeechSPerChar }

// CheckSpeech checks the seconds of a speech answer to a text of chars
// characters; field names the answer.
func (l Limits) CheckSpeech(field string, seconds float64, chars int) error {
	if most := l.SpeechSeconds(chars); seconds > most {
		return &OverError{Field: field, Value: fmt.Sprintf("%.1f s of audio for %d characters", seconds, chars),
			Key: "speech_s_per_char", Limit: fmt.Sprintf("%g s a character (%.1f s)", l.SpeechSPerChar, most)}
	}
	return nil
}

// RetryAfter is the longest wait an endpoint's Retry-After may ask for.
func (l Limits) RetryAfter() time.Duration {
	return time.Duration(l.RetryAfterS * float64(time.Second))
}
