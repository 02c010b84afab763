package proto

import (
	"fmt"
	"sync"
	"time"

	"github.com/floorbench/floorbench/internal/limits"
)

// speaker is a client's playback buffer on the session clock, played in
// 20 ms slots: audio is queued as it arrives and heard in order, each
// piece from the start of the slot it arrived in or from the end of the
// piece before, whichever is later; a barge-in drops what has not been
// heard from the start of the slot it arrived in. Every sample index is
// on the session's 16 kHz timeline (sample i at i/16000 s).
//
// Slots, not arrival times: the agent's answer to input frame n, sent at
// the end of its slot, is heard from slot n+1 over every protocol, as a
// duplex agent's frame n is, so a transport delay shorter than a frame
// moves nothing that is scored. Placed at its arrival instead, a stop
// that came 2 ms into its slot left 2 ms of speech there, and the
// scorer's 10 ms VAD frame rounded the stop up by 10 ms
// (docs/agents.md#protocols). A slot is rendered only once it is over, so
// its start is never in what was already heard.
type speaker struct {
	mu       sync.Mutex
	clock    *Clock
	lim      limits.Limits    // AgentQueueS bounds the audio queued ahead
	queue    []piece          // pieces not wholly heard yet, in order
	end      int64            // where the queued audio ends
	heard    int64            // samples rendered so far
	heardOf  map[string]int64 // samples of each item heard
	queuedOf map[string]int64 // samples of each item queued, heard or not
}

// piece is audio of one item (a realtime response's output item; "" for
// duplex) placed on the timeline.
type piece struct {
	item  string
	start int64
	x     []float32
}

func newSpeaker(clock *Clock, lim limits.Limits) *speaker {
	return &speaker{clock: clock, lim: lim, heardOf: map[string]int64{}, queuedOf: map[string]int64{}}
}

// sampleAt is the index of the sample playing at session time t.
func sampleAt(t time.Duration) int64 { return int64(t) * SampleRate / int64(time.Second) }

// slotAt is the index of the first sample of the 20 ms slot playing at
// session time t.
func slotAt(t time.Duration) int64 { return sampleAt(t) / FrameSamples * FrameSamples }

// timeOf is the session time of sample i.
func timeOf(i int64) time.Duration { return time.Duration(i * int64(time.Second) / SampleRate) }

// enqueue queues x, which arrived now, unless the audio queued ahead of
// playback would then last longer than the limits allow. The clock is
// read under the lock: whatever render has covered is in the past of
// every later arrival.
func (s *speaker) enqueue(item string, x []float32) error {
	if len(x) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := max(slotAt(s.clock.Now()), s.heard)
	start := max(now, s.end)
	if err := s.lim.CheckAgentQueue(float64(start+int64(len(x))-now) / SampleRate); err != nil {
		return fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	s.queue = append(s.queue, piece{item: item, start: start, x: x})
	s.end = start + int64(len(x))
	s.queuedOf[item] += int64(len(x))
	return nil
}

// render returns what was heard from the last render up to sample upTo,
// which must not be in the future.
func (s *speaker) render(upTo int64) []float32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]float32, max(0, upTo-s.heard))
	keep := s.queue[:0]
	for _, p := range s.queue {
		from, to := max(p.start, s.heard), min(p.start+int64(len(p.x)), upTo)
		if from < to {
			copy(out[from-s.heard:], p.x[from-p.start:to-p.start])
			s.heardOf[p.item] += to - from
		}
		if p.start+int64(len(p.x)) > upTo {
			keep = append(keep, p)
		}
	}
	s.queue = keep
	s.heard = max(s.heard, upTo)
	return out
}

// bargeIn stops playback now: the audio not heard yet is dropped. It
// reports the item that was cut, how many of its samples were heard, and
// whether anything was playing or queued at all.
func (s *speaker) bargeIn() (item string, heard int64, cut bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := max(slotAt(s.clock.Now()), s.heard)
	if s.end <= now {
		return "", 0, false
	}
	keep := s.queue[:0]
	for _, p := range s.queue {
		if p.start >= now {
			if !cut {
				item, cut = p.item, true
			}
			s.queuedOf[p.item] -= int64(len(p.x))
			continue
		}
		if stop := now - p.start; stop < int64(len(p.x)) {
			if !cut {
				item, cut = p.item, true
			}
			s.queuedOf[p.item] -= int64(len(p.x)) - stop
			p.x = p.x[:stop]
		}
		keep = append(keep, p)
	}
	s.queue, s.end = keep, now
	return item, s.queuedOf[item], cut
}
