package agent

import (
	"fmt"
	"math"
)

// VAD finds speech in an agent's output audio (docs/agents.md#voice-activity):
// frame energy with hysteresis and minimum durations. An agent's output is
// what it synthesised, without a room's noise, so its level alone tells
// speech from silence; a level rule is exact to the frame and has no
// model whose version could move a score. Every field is a parameter
// recorded with the results.
type VAD struct {
	FrameMS int `json:"frame_ms"` // analysis frame
	// A frame whose RMS reaches OnDBFS starts speech; speech goes on while
	// frames reach OffDBFS (dB relative to full scale; OffDBFS <= OnDBFS).
	OnDBFS  float64 `json:"on_dbfs"`
	OffDBFS float64 `json:"off_dbfs"`
	// Silences shorter than MinSilenceMS inside speech are bridged (word
	// gaps); speech shorter than MinSpeechMS after bridging is dropped
	// (clicks).
	MinSpeechMS  int `json:"min_speech_ms"`
	MinSilenceMS int `json:"min_silence_ms"`
}

// DefaultVAD is the VAD with its published defaults.
func DefaultVAD() VAD {
	return VAD{FrameMS: 10, OnDBFS: -40, OffDBFS: -50, MinSpeechMS: 100, MinSilenceMS: 200}
}

// Validate checks the parameters.
func (v VAD) Validate() error {
	switch {
	case v.FrameMS < 1 || v.FrameMS > 100:
		return fmt.Errorf("vad frame_ms %d (want 1 to 100)", v.FrameMS)
	case !(v.OnDBFS <= 0 && v.OnDBFS >= -120):
		return fmt.Errorf("vad on_dbfs %g (want -120 to 0)", v.OnDBFS)
	case !(v.OffDBFS <= v.OnDBFS && v.OffDBFS >= -120):
		return fmt.Errorf("vad off_dbfs %g (want -120 to on_dbfs %g)", v.OffDBFS, v.OnDBFS)
	case v.MinSpeechMS < 0 || v.MinSpeechMS > 10000:
		return fmt.Errorf("vad min_speech_ms %d (want 0 to 10000)", v.MinSpeechMS)
	case v.MinSilenceMS < 0 || v.MinSilenceMS > 10000:
		return fmt.Errorf("vad min_silence_ms %d (want 0 to 10000)", v.MinSilenceMS)
	}
	return nil
}

// Segment is one stretch of speech, in seconds on the trial clock.
type Segment struct {
	Onset  float64 `json:"onset_s"`
	Offset float64 `json:"offset_s"`
}

// Segments returns the speech of x (16 kHz): frames of FrameMS from
// sample 0 (a last partial frame is ignored), onsets at a frame's start,
// offsets at the end of the last speech frame.
func (v VAD) Segments(x []float32) []Segment {
	s := v.Stream()
	frame := v.frameSamples()
	for i := 0; i+frame <= len(x); i += frame {
		s.push(frameDBFS(x[i : i+frame]))
	}
	return s.Close()
}

func (v VAD) frameSamples() int { return SampleRate * v.FrameMS / 1000 }

// frameDBFS is the RMS of a frame in dB relative to full scale (-inf for
// digital silence).
func frameDBFS(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return 10 * math.Log10(s/float64(len(x)))
}

// VADStream is the VAD run frame by frame, as a harness listening to an
// agent runs it: Push audio as it is heard and learn when the agent is
// first heard to speak. The segments of the stream closed after the last
// Push equal those of the whole audio.
type VADStream struct {
	v       VAD
	frame   int
	pending []float32
	frames  int // frames seen

	inRun    bool // the last frame was above the hysteresis threshold
	open     bool // a segment is open (possibly in a bridged gap)
	start    int  // first frame of the open segment
	lastEnd  int  // frame after the open segment's last speech frame
	segments []Segment

	heard bool // speech has been confirmed
	onset int  // first frame of the first confirmed speech
}

// Stream returns a new frame-by-frame VAD.
func (v VAD) Stream() *VADStream { return &VADStream{v: v, frame: v.frameSamples()} }

// Push feeds the next samples.
func (s *VADStream) Push(x []float32) {
	s.pending = append(s.pending, x...)
	n := 0
	for ; n+s.frame <= len(s.pending); n += s.frame {
		s.push(frameDBFS(s.pending[n : n+s.frame]))
	}
	s.pending = append(s.pending[:0], s.pending[n:]...)
}

func (s *VADStream) push(db float64) {
	i := s.frames
	s.frames++
	threshold := s.v.OnDBFS
	if s.inRun {
		threshold = s.v.OffDBFS
	}
	s.inRun = db >= threshold
	switch {
	case s.inRun && !s.open:
		s.open, s.start, s.lastEnd = true, i, i+1
	case s.inRun:
		s.lastEnd = i + 1
	case s.open && s.framesMS(i+1-s.lastEnd) >= s.v.MinSilenceMS:
		s.closeSegment()
	}
	if s.open && !s.heard && s.framesMS(s.lastEnd-s.start) >= s.v.MinSpeechMS {
		s.heard, s.onset = true, s.start
	}
}

func (s *VADStream) framesMS(n int) int { return n * s.v.FrameMS }

// closeSegment ends the open segment at its last speech frame, keeping it
// if it lasted MinSpeechMS.
func (s *VADStream) closeSegment() {
	if s.framesMS(s.lastEnd-s.start) >= s.v.MinSpeechMS {
		s.segments = append(s.segments, Segment{s.seconds(s.start), s.seconds(s.lastEnd)})
	}
	s.open = false
}

func (s *VADStream) seconds(frame int) float64 {
	return float64(frame*s.frame) / SampleRate
}

// Onset reports whether the agent has been heard to speak (a segment has
// lasted MinSpeechMS, so the batch VAD will keep it) and the onset of that
// first speech. A harness plays a STOP stimulus its delay after it.
func (s *VADStream) Onset() (float64, bool) { return s.seconds(s.onset), s.heard }

// Speaking reports whether the agent is talking now (a segment that has
// lasted MinSpeechMS is open, silences shorter than MinSilenceMS bridged)
// and when that speech began.
func (s *VADStream) Speaking() (float64, bool) {
	if s.open && s.framesMS(s.lastEnd-s.start) >= s.v.MinSpeechMS {
		return s.seconds(s.start), true
	}
	return 0, false
}

// Heard is the time of the frames pushed so far, in seconds.
func (s *VADStream) Heard() float64 { return s.seconds(s.frames) }

// Close ends the stream and returns every segment. A segment still open
// at the end ends at its last speech frame.
func (s *VADStream) Close() []Segment {
	if s.open {
		s.closeSegment()
	}
	return s.segments
}
