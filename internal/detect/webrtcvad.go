package detect

import (
	"encoding/binary"
	"fmt"

	webrtcvad "github.com/maxhawkins/go-webrtcvad"
)

var webrtcParams = inStage(StageModel, []Param{
	{Name: "mode", Kind: KindInt, Default: 2, Doc: "aggressiveness 0 (least) to 3 (most): higher rejects more non-speech"},
	{Name: "frame_ms", Kind: KindInt, Default: 20, Doc: "frame length: 10, 20 or 30 ms"},
})

// webrtcModel runs one WebRTC VAD instance per channel (the VAD keeps
// state between frames) on non-overlapping frames; activity is its 0/1
// decision.
type webrtcModel struct {
	mode, frame int
}

func newWebRTCModel(v values) (*webrtcModel, error) {
	mode, ms := v.int("mode"), v.int("frame_ms")
	if mode < 0 || mode > 3 {
		return nil, fmt.Errorf("webrtcvad: mode must be 0, 1, 2 or 3, got %d", mode)
	}
	if ms != 10 && ms != 20 && ms != 30 {
		return nil, fmt.Errorf("webrtcvad: frame_ms must be 10, 20 or 30, got %d", ms)
	}
	return &webrtcModel{mode: mode, frame: SampleRate * ms / 1000}, nil
}

func (w *webrtcModel) outputs() modelOutputs { return modelOutputs{hop: w.frame, roles: activityOnly} }

func (w *webrtcModel) start(speakers int) (modelRun, error) {
	run := &webrtcRun{framers: framers(speakers, w.frame, w.frame), pcm: make([]byte, 2*w.frame)}
	for range speakers {
		vad, err := webrtcvad.New()
		if err != nil {
			return nil, fmt.Errorf("webrtcvad: %w", err)
		}
		if err := vad.SetMode(w.mode); err != nil {
			return nil, fmt.Errorf("webrtcvad: %w", err)
		}
		run.vads = append(run.vads, vad)
	}
	return run, nil
}

func (w *webrtcModel) close() error { return nil }

// webrtcRun is one VAD per channel part way through a conversation.
type webrtcRun struct {
	framers []*framer
	vads    []*webrtcvad.VAD
	pcm     []byte
}

func (r *webrtcRun) push(channels [][]float32, out [][][]float32) error {
	for k, ch := range channels {
		f := r.framers[k]
		f.add(ch)
		for w, ok := f.window(); ok; w, ok = f.window() {
			f.advance()
			for i, s := range w {
				binary.LittleEndian.PutUint16(r.pcm[2*i:], uint16(pcm16(s)))
			}
			speech, err := r.vads[k].Process(SampleRate, r.pcm)
			if err != nil {
				return fmt.Errorf("webrtcvad: %w", err)
			}
			var a float32
			if speech {
				a = 1
			}
			out[0][k] = append(out[0][k], a)
		}
	}
	return nil
}

// pcm16 converts a sample in [-1, 1] to 16-bit PCM, clipping outside it.
// It truncates toward zero, which returns 16-bit input (i/32768) exactly.
func pcm16(s float32) int16 {
	return int16(max(-32768, min(32767, s*32768)))
}

// close leaves the VADs to the binding's finalizers, which free them.
func (r *webrtcRun) close() error { return nil }
