package seated

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/score"
)

// Params say how a seated agent's speech becomes predictions
// (docs/agents.md#seated-agents). Every field is recorded with the
// predictions.
type Params struct {
	// VAD finds the agent's speech in what was heard from it: the scorer's
	// voice activity (docs/agents.md#voice-activity), never a label the
	// agent emits.
	VAD agent.VAD `json:"vad"`
	// Refractory is the commit rule's (docs/protocol.md#commit-rule), in
	// seconds: an onset less than this after the last prediction kept for
	// the same speaker and task is dropped, and does not restart the count.
	Refractory float64 `json:"refractory_s"`
}

// DefaultParams are the published defaults: the scorer's VAD and the
// protocol's refractory.
func DefaultParams() Params {
	return Params{VAD: agent.DefaultVAD(), Refractory: score.DefaultParams().Refractory}
}

// Validate checks the parameters.
func (p Params) Validate() error {
	if math.IsNaN(p.Refractory) || math.IsInf(p.Refractory, 0) || p.Refractory < 0 {
		return fmt.Errorf("refractory %v s: must be finite and >= 0", p.Refractory)
	}
	return p.VAD.Validate()
}

// ActivityFPS is the frame rate of the speech activity that tells whether
// the other speakers were speaking at an agent's onset.
const ActivityFPS = 100.0

// SeatOnsets is what the agent in one seat did: the onsets of its speech
// within the conversation and, for each, whether another speaker was
// speaking then.
type SeatOnsets struct {
	Speaker int
	Onsets  []float64
	Barge   []bool
}

// Onsets are the onsets of the speech v finds in output (what was heard
// from the agent, 16 kHz, 0 at the conversation's start), as predictions
// of a conversation of duration seconds: an onset in the tail after the
// conversation's end is a prediction at its end. The agent replied to the
// conversation's last moments and was heard doing so only after its last
// sample; a prediction cannot carry a later time
// (docs/protocol.md#predictions), so its latency is counted to the end,
// short of the truth by at most the tail.
func Onsets(output []float32, duration float64, v agent.VAD) []float64 {
	var out []float64
	for _, s := range v.Segments(output) {
		out = append(out, min(s.Onset, duration))
	}
	return slices.Compact(out)
}

// Barges tells, for each onset, whether mix (what the agent heard) held
// speech then: the voice activity of the built-in rms system with its
// defaults (detect.EnergyActivity) on the last ActivityFPS frame that ends
// by the onset. It reads the audio, not the labels, so an unlabelled
// conversation gets predictions too.
func Barges(ctx context.Context, id string, mix []float32, duration float64, onsets []float64) ([]bool, error) {
	act, err := detect.EnergyActivity(ctx, &detect.Conversation{ID: id, SampleRate: detect.SampleRate, Duration: duration,
		Channels: [][]float32{mix}}, ActivityFPS)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(onsets))
	for i, t := range onsets {
		f := int(math.Floor(t*ActivityFPS+1e-9)) - 1
		out[i] = f >= 0 && f < len(act[0]) && act[0][f] > 0.5
	}
	return out, nil
}

// ConversationPredictions turns the seats' onsets into one conversation's
// predictions (docs/agents.md#seated-agents): an onset of the agent in
// seat k is an EOT prediction for every other speaker, and, when another
// speaker was speaking, an INT prediction for speaker k. Each speaker's
// list per task is sorted and thinned by the refractory.
func ConversationPredictions(id string, speakers int, seats []SeatOnsets, refractory float64) score.ConversationPredictions {
	eot, intr := make([][]float64, speakers), make([][]float64, speakers)
	for _, s := range seats {
		for i, t := range s.Onsets {
			for j := range speakers {
				if j != s.Speaker-1 {
					eot[j] = append(eot[j], t)
				}
			}
			if s.Barge[i] {
				intr[s.Speaker-1] = append(intr[s.Speaker-1], t)
			}
		}
	}
	c := score.ConversationPredictions{ID: id, Speakers: make([]score.SpeakerPredictions, speakers)}
	for j := range speakers {
		c.Speakers[j] = score.SpeakerPredictions{EOT: thin(eot[j], refractory), INT: thin(intr[j], refractory)}
	}
	return c
}

// thin sorts times and keeps each one at least refractory (to the
// nanosecond) after the last kept one, always strictly after it.
func thin(times []float64, refractory float64) []float64 {
	slices.Sort(times)
	out := []float64{}
	for _, t := range times {
		if n := len(out); n == 0 || (t > out[n-1] && t-out[n-1] >= refractory-1e-9) {
			out = append(out, t)
		}
	}
	return out
}

// Predict derives the submission of convs (a split, in its order) from the
// seats' recordings in out, without the agent: every conversation and
// speaker appears, a speaker no seated agent predicted for with empty
// lists. A seat without a usable recording is an error.
func Predict(ctx context.Context, c *corpus.Corpus, convs []corpus.Conversation, seats []Seat, out string, p Params) (*score.Submission, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	sub := &score.Submission{}
	for _, conv := range convs {
		var mine []Seat
		for _, s := range seats {
			if s.Conversation.ID == conv.ID {
				mine = append(mine, s)
			}
		}
		so, err := conversationOnsets(ctx, c, conv, mine, out, p.VAD)
		if err != nil {
			return nil, err
		}
		sub.Conversations = append(sub.Conversations, ConversationPredictions(conv.ID, conv.Speakers, so, p.Refractory))
	}
	return sub, nil
}

// conversationOnsets reads the onsets of one conversation's seats.
func conversationOnsets(ctx context.Context, c *corpus.Corpus, conv corpus.Conversation, seats []Seat, out string, v agent.VAD) ([]SeatOnsets, error) {
	if len(seats) == 0 {
		return nil, nil
	}
	channels, err := c.Channels16k(conv)
	if err != nil {
		return nil, err
	}
	var so []SeatOnsets
	for _, s := range seats {
		dir := filepath.Join(out, SessionsDir, s.Name())
		r, err := ReadRecording(dir)
		if err != nil {
			return nil, fmt.Errorf("seat %d of %s: %w", s.Speaker, conv.ID, err)
		}
		output, err := r.ReadOutput(dir)
		if err != nil {
			return nil, err
		}
		onsets := Onsets(output, conv.Duration, v)
		mix := Mix(channels, s.Speaker, InputFrames(conv, 0))
		barge, err := Barges(ctx, conv.ID, mix, conv.Duration, onsets)
		if err != nil {
			return nil, err
		}
		so = append(so, SeatOnsets{Speaker: s.Speaker, Onsets: onsets, Barge: barge})
	}
	return so, nil
}
