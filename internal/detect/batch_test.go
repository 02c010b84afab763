package detect

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync/atomic"
	"testing"
)

// batchConversations are conversations of 1 to 4 speakers and of several
// lengths, one too short for any model value, made of the dialogue's two
// channels.
func batchConversations(t *testing.T) []*Conversation {
	c, _ := dialogue(t)
	a, b := c.Channels[0], c.Channels[1]
	mk := func(id string, duration float64, channels ...[]float32) *Conversation {
		return &Conversation{ID: id, SampleRate: SampleRate, Duration: duration, Channels: channels}
	}
	return []*Conversation{
		mk("two", c.Duration, a, b),
		mk("three-short", 3.3, b, a, b),
		mk("one", 5.05, a),
		mk("tiny", 0.02, a, b),
		mk("four", 9.7, a, b, b, a),
		mk("two-reversed", 12.5, b, a),
		mk("three", c.Duration, a, a, b),
		mk("two-padded", c.Duration+1.3, b, a),
	}
}

// streamed is c with its channels read a piece at a time (Conversation.Open)
// rather than held; open counts the readers not yet closed.
func streamed(c *Conversation, open *atomic.Int64) *Conversation {
	return &Conversation{ID: c.ID, SampleRate: c.SampleRate, Duration: c.Duration, Speakers: len(c.Channels),
		Open: func(k int) (ChannelReader, error) {
			open.Add(1)
			return &sliceReader{x: c.Channels[k], open: open}, nil
		}}
}

// sliceReader reads a channel held in memory.
type sliceReader struct {
	x    []float32
	open *atomic.Int64
}

func (r *sliceReader) Read(p []float32) (int, error) {
	if len(r.x) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.x)
	r.x = r.x[n:]
	return n, nil
}

func (r *sliceReader) Close() error {
	r.open.Add(-1)
	return nil
}

// RunAll gives every conversation the output Run gives it, bit for bit,
// whatever the batch's rows: conversations share a batch, leave it as they
// end (their rows retired, the others' state kept) and newcomers take their
// place; one with more speakers than the rows runs alone. A feed that is
// busy now and then changes nothing either, nor channels read a piece at
// a time (Conversation.Open), whose readers are all closed. So do steps that give several
// values (VAP, Turn-1-Mini), models that fix their batch at 1 and keep
// queues (MaAI), and models at 24 kHz.
func TestRunAllGivesEachConversationItsOwnRun(t *testing.T) {
	cases := []struct {
		name        string
		system      func(t *testing.T) *System
		twoSpeakers bool
	}{
		{"silero", func(t *testing.T) *System { return systemOf(t, "silero") }, false},
		{"onnx-silero", sileroSpec(RuleGate), false},
		{"onnx-probe", probeSystem, true},
		{"webrtcvad", func(t *testing.T) *System { return systemOf(t, "webrtcvad") }, false},
		{"onnx-vap", contractSystem(vapSpec, vapModel), true},
		{"onnx-maai", contractSystem(maaiSpec, maaiModel), true},
		{"onnx-turn-1-mini", contractSystem(turn1MiniSpec, turn1MiniModel), false},
		{"onnx-24k", contractSystem(endpointer24kSpec, endpointer24kModel), false},
	}
	convs := batchConversations(t)
	var open atomic.Int64
	var streams []*Conversation
	for _, c := range convs {
		streams = append(streams, streamed(c, &open))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.system(t)
			rt := runtimeFor(t, s.Family())
			want := map[string]*ModelOutput{}
			m := openModel(t, s, rt)
			for _, c := range convs {
				if tc.twoSpeakers && len(c.Channels) < 2 {
					continue
				}
				out, err := m.Run(context.Background(), c)
				if err != nil {
					t.Fatal(err)
				}
				want[c.ID] = out
			}
			for _, run := range []struct {
				rows int
				busy bool
			}{{1, false}, {3, true}, {5, false}, {64, true}} {
				rt.BatchRows = run.rows
				got := runAll(t, openModel(t, s, rt), convs, run.busy, tc.twoSpeakers)
				for id, w := range want {
					if err := sameOutput(w, got[id]); err != nil {
						t.Errorf("%d rows, busy feed %v: conversation %s: %v", run.rows, run.busy, id, err)
					}
				}
				if len(got) != len(want) {
					t.Errorf("%d rows: %d outputs, want %d", run.rows, len(got), len(want))
				}
				// Channels read a piece at a time give the same outputs.
				got = runAll(t, openModel(t, s, rt), streams, run.busy, tc.twoSpeakers)
				for id, w := range want {
					if err := sameOutput(w, got[id]); err != nil {
						t.Errorf("%d rows, busy feed %v: conversation %s streamed: %v", run.rows, run.busy, id, err)
					}
				}
				if n := open.Load(); n != 0 {
					t.Errorf("%d rows: %d channel readers left open", run.rows, n)
				}
			}
			for _, c := range streams {
				if tc.twoSpeakers && c.speakers() < 2 {
					continue
				}
				out, err := m.Run(context.Background(), c)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameOutput(want[c.ID], out); err != nil {
					t.Errorf("Run, conversation %s streamed: %v", c.ID, err)
				}
			}
		})
	}
}

func openModel(t *testing.T, s *System, rt Runtime) *Model {
	t.Helper()
	m, err := s.OpenModel(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// runAll feeds convs to RunAll (skipping one-speaker ones where the model
// needs two); a busy feed refuses every other conversation while others
// run.
func runAll(t *testing.T, m *Model, convs []*Conversation, busy, twoSpeakers bool) map[string]*ModelOutput {
	t.Helper()
	got := map[string]*ModelOutput{}
	next, calls := 0, 0
	err := m.RunAll(context.Background(), Feed{
		Next: func(_ context.Context, running bool) (*Conversation, error) {
			calls++
			if busy && running && calls%2 == 0 {
				return nil, ErrBusy
			}
			for next < len(convs) && twoSpeakers && convs[next].speakers() < 2 {
				next++
			}
			if next == len(convs) {
				return nil, nil
			}
			next++
			return convs[next-1], nil
		},
		Done: func(c *Conversation, out *ModelOutput) error {
			if _, ok := got[c.ID]; ok {
				return fmt.Errorf("conversation %s done twice", c.ID)
			}
			got[c.ID] = out
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func sameOutput(want, got *ModelOutput) error {
	switch {
	case got == nil:
		return fmt.Errorf("no output")
	case got.Duration != want.Duration || got.Hop != want.Hop || !slices.Equal(got.Roles, want.Roles) || len(got.Values) != len(want.Values):
		return fmt.Errorf("header %v %v %v, want %v %v %v", got.Duration, got.Hop, got.Roles, want.Duration, want.Hop, want.Roles)
	}
	for t := range want.Values {
		for k := range want.Values[t] {
			if !slices.Equal(got.Values[t][k], want.Values[t][k]) {
				return fmt.Errorf("output %d speaker %d differs", t, k+1)
			}
		}
	}
	return got.check()
}
