package seated

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/corpus"
)

// Seat is one session of a seated run: a conversation with the agent in
// one speaker's place.
type Seat struct {
	Conversation corpus.Conversation
	// Speaker is the speaker the agent stands in for, from 1.
	Speaker int
}

// Name is the seat's folder name under sessions/: <conversation>--seat<k>.
func (s Seat) Name() string { return fmt.Sprintf("%s--seat%d", s.Conversation.ID, s.Speaker) }

// Speakers chooses seats: nil is every speaker of every conversation; a
// list holds speaker numbers from 1, and a conversation with fewer
// speakers has no seat for the larger ones.
type Speakers []int

// ParseSpeakers reads --speakers: "all" or a comma-separated list of
// speaker numbers (1 to 16), each once.
func ParseSpeakers(s string) (Speakers, error) {
	if s == "all" {
		return nil, nil
	}
	var out Speakers
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 || k > 16 {
			return nil, fmt.Errorf("--speakers %q: %q is not a speaker number from 1 to 16 (or give all)", s, f)
		}
		if slices.Contains(out, k) {
			return nil, fmt.Errorf("--speakers %q: speaker %d twice", s, k)
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out, nil
}

// Seats lists the seats of the conversations, in their order, speakers
// ascending within each. Unlabelled conversations are seated too: their
// predictions can be submitted, not scored here.
func Seats(convs []corpus.Conversation, speakers Speakers) []Seat {
	var out []Seat
	for _, c := range convs {
		for k := 1; k <= c.Speakers; k++ {
			if speakers == nil || slices.Contains(speakers, k) {
				out = append(out, Seat{Conversation: c, Speaker: k})
			}
		}
	}
	return out
}

// SweepSeats are the seats a sweep seats an agent in on a corpus with
// manifest m: the speakers (nil: every speaker) of every labelled
// conversation, in manifest order. An unlabelled conversation could not
// be scored in the sweep.
func SweepSeats(m *corpus.Manifest, speakers Speakers) []Seat {
	var convs []corpus.Conversation
	for _, conv := range m.Conversations {
		if !conv.Unlabelled {
			convs = append(convs, conv)
		}
	}
	return Seats(convs, speakers)
}

// Mix is what the agent in seat k (from 1) hears: every other channel
// summed sample by sample, as a conference bridge mixes its callers, and
// nothing of channel k. It is cut or padded with silence to frames whole
// protocol frames. A sum beyond full scale is clipped where the protocol
// carries it as PCM16.
func Mix(channels [][]float32, k, frames int) []float32 {
	out := make([]float32, frames*proto.FrameSamples)
	for j, ch := range channels {
		if j == k-1 {
			continue
		}
		for i := range min(len(ch), len(out)) {
			out[i] += ch[i]
		}
	}
	return out
}

// InputFrames is how many frames a seat's session sends: the
// conversation's samples in whole frames, then tail seconds of silence,
// in which an agent may still start to speak at the conversation's end
// and be heard doing so for long enough to count.
func InputFrames(c corpus.Conversation, tail float64) int {
	conv := (c.Samples + proto.FrameSamples - 1) / proto.FrameSamples
	return conv + int(math.Ceil(tail*proto.SampleRate/proto.FrameSamples))
}
