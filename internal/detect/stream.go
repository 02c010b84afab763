package detect

import (
	"errors"
	"fmt"

	"github.com/floorbench/floorbench/internal/floor"
)

// StreamFrame is one output frame of a stream: per speaker, the EOT and INT
// score; nil for a task the system does not score (System.Tasks).
type StreamFrame struct{ EOT, INT []float64 }

// Stream is a detector fed audio as it arrives (package documentation,
// "Streaming"). Its frames are, bit for bit, the frames Detect gives for
// the same audio. A Stream is used by one goroutine at a time.
type Stream interface {
	// Push takes the next samples of every channel (equal lengths, any
	// count: 20 ms = 320 samples at 16 kHz is the usual, but odd sizes
	// must work) and returns the output frames (at the system's
	// frame_rate_hz) completed by the audio heard so far, in order.
	Push(channels [][]float32) ([]StreamFrame, error)
	Close() error
}

// OpenStream opens a stream of system s for a conversation of speakers
// channels at 16 kHz. The caller closes it. A family whose scores are not
// computed from audio (external) cannot stream.
func (s *System) OpenStream(rt Runtime, speakers int) (Stream, error) {
	if err := s.checkRequired(); err != nil {
		return nil, err
	}
	if s.family.ModelStage == nil {
		return nil, fmt.Errorf("family %s cannot stream: its scores are made elsewhere (files, an endpoint), not computed from audio here", s.family.Name)
	}
	if speakers < 1 {
		return nil, fmt.Errorf("a stream needs at least one speaker channel, got %d", speakers)
	}
	d, err := s.openAudio(rt)
	if err != nil {
		return nil, err
	}
	run, err := d.model.start(speakers)
	if err != nil {
		d.Close()
		return nil, err
	}
	out := d.model.outputs()
	return &audioStream{detector: d, run: run, scorer: newScorer(out, d.mapping, speakers, d.fps), tasks: tasksOfRoles(out.roles)}, nil
}

// audioStream is a Stream of an audio detector. A push that fails in the
// model leaves the model part way through a step, so the stream stays
// broken: every later push returns that error.
type audioStream struct {
	detector *audioDetector
	run      modelRun
	scorer   *scorer
	tasks    []floor.Task // the tasks the model's outputs score
	broken   error
	closed   bool
}

func (s *audioStream) Push(channels [][]float32) ([]StreamFrame, error) {
	switch {
	case s.closed:
		return nil, errors.New("push on a closed stream")
	case s.broken != nil:
		return nil, s.broken
	}
	if err := s.checkPush(channels); err != nil {
		return nil, err
	}
	if err := s.scorer.grid.hear(s.run, channels); err != nil {
		s.broken = fmt.Errorf("stream broken by an earlier push: %w", err)
		return nil, err
	}
	return s.frames(), nil
}

func (s *audioStream) checkPush(channels [][]float32) error {
	if speakers := len(s.scorer.eot); len(channels) != speakers {
		return fmt.Errorf("push: %d channels, the stream has %d speakers", len(channels), speakers)
	}
	for k, ch := range channels {
		if len(ch) != len(channels[0]) {
			return fmt.Errorf("push: channel %d has %d samples, channel 1 has %d; push equal lengths", k+1, len(ch), len(channels[0]))
		}
	}
	return nil
}

// frames scores every frame the audio heard so far completes, copying each
// frame's scores out of the scorer into one allocation per push.
func (s *audioStream) frames() []StreamFrame {
	count, n := s.scorer.grid.complete(), len(s.scorer.eot)
	if count == 0 {
		return nil
	}
	out := make([]StreamFrame, count)
	scores := make([]float64, 2*n*count)
	for i := range out {
		values, _ := s.scorer.grid.next()
		eot, intr := s.scorer.score(values)
		at := scores[2*n*i:]
		out[i] = StreamFrame{EOT: at[:n:n], INT: at[n : 2*n : 2*n]}
		copy(out[i].EOT, eot)
		copy(out[i].INT, intr)
		dropUnscored(s.tasks, &out[i].EOT, &out[i].INT)
	}
	return out
}

func (s *audioStream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return errors.Join(s.run.close(), s.detector.Close())
}
